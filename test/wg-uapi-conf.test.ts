import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { SECRET_FILE } from '../src/exec/command';
import { peerOps, renderInterfaceConf } from '../src/wg/uapi-conf';
import { fixturePeer, fixtureServer } from './helpers/kernel-fixtures';

const t = suite('wg config and peer commands');
const server = fixtureServer(1);

t('the syncconf text holds the key, the port and only enabled peers', () => {
  const a = fixturePeer(1, server, 1);
  const b = fixturePeer(2, server, 2, { enabled: false, disabledReasons: ['admin'] });
  const text = renderInterfaceConf(server, [a, b]);
  assert.ok(text.startsWith(`[Interface]\nPrivateKey = ${server.privateKey}\nListenPort = 51821\n`));
  assert.ok(text.includes(`[Peer]\nPublicKey = ${a.publicKey}\nPresharedKey = ${a.presharedKey}\nAllowedIPs = 10.1.0.2/32,fd77:0:1::2/128\n`));
  assert.not.ok(text.includes(b.publicKey));
});

t('a new enabled peer is one wg set with the preshared key in a private file, never in the arguments', () => {
  const a = fixturePeer(1, server, 1);
  const ops = peerOps('wgcp1', null, a);
  assert.equal(ops, [{ args: ['set', 'wgcp1', 'peer', a.publicKey, 'preshared-key', SECRET_FILE, 'allowed-ips', '10.1.0.2/32,fd77:0:1::2/128'], secret: a.presharedKey + '\n' }]);
  assert.not.ok(ops[0].args.includes(a.presharedKey));
});

t('a deleted or disabled peer is removed; a re-enabled one is added back', () => {
  const a = fixturePeer(1, server, 1);
  const off = { ...a, enabled: false };
  assert.equal(peerOps('wgcp1', a, null), [{ args: ['set', 'wgcp1', 'peer', a.publicKey, 'remove'] }]);
  assert.equal(peerOps('wgcp1', a, off), [{ args: ['set', 'wgcp1', 'peer', a.publicKey, 'remove'] }]);
  assert.equal(peerOps('wgcp1', off, a).length, 1);
  assert.equal(peerOps('wgcp1', off, null), []);
});

t('a new key removes the old peer and adds the new; a name change touches nothing', () => {
  const a = fixturePeer(1, server, 1);
  const rekeyed = { ...a, publicKey: fixturePeer(9, server, 9).publicKey };
  const ops = peerOps('wgcp1', a, rekeyed);
  assert.equal(ops.map((o) => o.args[3]), [a.publicKey, rekeyed.publicKey]);
  assert.equal(ops[0].args[4], 'remove');
  assert.equal(peerOps('wgcp1', a, { ...a, name: 'renamed', allowInternet: true }), []);
  assert.equal(peerOps('wgcp1', a, { ...a, ip: '10.1.0.77' })[0].args.slice(-1), ['10.1.0.77/32,fd77:0:1::2/128']);
  assert.equal(peerOps('wgcp1', a, { ...a, ip6: 'fd77:0:1::77' })[0].args.slice(-1), ['10.1.0.2/32,fd77:0:1::77/128'], 'a new IPv6 address re-sets the peer');
  assert.equal(peerOps('wgcp1', null, { ...a, ip6: null })[0].args.slice(-1), ['10.1.0.2/32'], 'an IPv4-only peer');
});

t('refuses keys and addresses that are not what wg expects', () => {
  assert.throws(() => peerOps('wgcp1', null, fixturePeer(1, server, 1, { publicKey: 'x --help' })), /not a WireGuard key/);
  assert.throws(() => peerOps('wgcp1', null, fixturePeer(1, server, 1, { ip: '10.1.0.2/32 dev lo' })), /not an IPv4/);
});

t.run();
