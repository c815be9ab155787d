import { execFileSync } from 'node:child_process';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { generateKeyPair, generatePresharedKey, hexToKey, isWireGuardKey, keyToHex, publicKeyOf } from '../src/wg/keys';
import { firstFreeHost, formatIpv4, isHostOf, parseCidr, parseIpv4 } from '../src/net/ipv4';
import { peerAllowedIps, stripConf } from '../src/wg/conf';
import { canRun } from './helpers/root';

const t = suite('keys, addresses and .conf helpers');

t('makes X25519 key pairs whose public key wg agrees with', () => {
  const kp = generateKeyPair();
  assert.ok(isWireGuardKey(kp.privateKey));
  assert.ok(isWireGuardKey(kp.publicKey));
  assert.is(publicKeyOf(kp.privateKey), kp.publicKey);
  if (canRun('wg pubkey', ['wg'])) {
    assert.is(execFileSync('wg', ['pubkey'], { input: kp.privateKey, encoding: 'utf8' }).trim(), kp.publicKey);
  }
  assert.is.not(generateKeyPair().privateKey, kp.privateKey);
  assert.ok(isWireGuardKey(generatePresharedKey()));
});

t('derives the public key of RFC 7748 test vector (Alice and Bob)', () => {
  assert.is(keyToHex(publicKeyOf(hexToKey('77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a'))), '8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a');
  assert.is(keyToHex(publicKeyOf(hexToKey('5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb'))), 'de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f');
});

t('tells WireGuard keys from other text', () => {
  assert.not.ok(isWireGuardKey('abc'));
  assert.not.ok(isWireGuardKey('A'.repeat(42) + 'B='));
  assert.not.ok(isWireGuardKey('A'.repeat(44)));
  assert.ok(isWireGuardKey('A'.repeat(42) + 'E='));
});

t('converts keys between base64 and 64-char hex both ways', () => {
  const { privateKey } = generateKeyPair();
  const hex = keyToHex(privateKey);
  assert.match(hex, /^[0-9a-f]{64}$/);
  assert.is(hexToKey(hex), privateKey);
});

t('parses IPv4 addresses and subnets strictly', () => {
  assert.is(parseIpv4('10.0.0.1'), 0x0a000001);
  for (const bad of ['10.0.0', '256.0.0.1', '01.2.3.4', '1.2.3.4.5', 'a.b.c.d', '']) assert.is(parseIpv4(bad), null, bad);
  assert.equal(parseCidr('10.8.0.1/24'), { ip: 0x0a080001, prefix: 24 });
  assert.is(parseCidr('10.8.0.1/33'), null);
  assert.is(formatIpv4(0xc0a80101), '192.168.1.1');
});

t('knows the host addresses of a subnet', () => {
  const c = parseCidr('10.8.0.1/24')!;
  assert.ok(isHostOf(c, parseIpv4('10.8.0.254')!));
  assert.not.ok(isHostOf(c, parseIpv4('10.8.0.0')!));
  assert.not.ok(isHostOf(c, parseIpv4('10.8.0.255')!));
  assert.not.ok(isHostOf(c, parseIpv4('10.8.1.1')!));
});

t('allocates the lowest free host address, or none when full', () => {
  const c = parseCidr('10.8.0.1/30')!;
  assert.is(firstFreeHost(c, ['10.8.0.1']), '10.8.0.2');
  assert.is(firstFreeHost(c, ['10.8.0.1', '10.8.0.2']), null);
});

t('routes the whole internet or only the server subnet', () => {
  assert.is(peerAllowedIps({ address: '10.8.0.1/24' }, true), '0.0.0.0/0, ::/0');
  assert.is(peerAllowedIps({ address: '10.8.3.1/16' }, false), '10.8.0.0/16');
});

t('strips exactly the wg-quick keys from a .conf', () => {
  const conf = '[Interface]\nPrivateKey = k\nAddress = 10.0.0.2/32\nDNS = 1.1.1.1\nMTU = 1400\n\n[Peer]\nPublicKey = p\nAllowedIPs = 0.0.0.0/0\n';
  assert.is(stripConf(conf), '[Interface]\nPrivateKey = k\n\n[Peer]\nPublicKey = p\nAllowedIPs = 0.0.0.0/0\n');
});

t.run();
