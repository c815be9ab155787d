import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { FailureLimiter, limiterKey } from '../src/device/failure-limiter';
import { canonicalForwards, forwardsHash, forwardsHashOfJson } from '../src/device/forwards-hash';
import { isHardwareId, isUuid } from '../src/device/identifiers';
import { decryptPayload, deviceKey, encryptPayload } from '../src/device/payload-crypto';
import { loadServerSalt } from '../src/device/server-salt';
import { tempDir } from './helpers/daemon';

const t = suite('device units: forwards_hash, payload crypto, identifiers, salt file, failure limiter');

t('canonical forwards are sorted by protocol then listenPort with keys in a fixed order, whatever the input', () => {
  const text = canonicalForwards([
    { targetPort: 5000, listenPort: 15000, protocol: 'udp' } as never,
    { protocol: 'tcp', listenPort: 18080, targetPort: 80 },
    { protocol: 'tcp', listenPort: 443, targetPort: 8443 },
  ]);
  assert.is(text, '[{"protocol":"tcp","listenPort":443,"targetPort":8443},{"protocol":"tcp","listenPort":18080,"targetPort":80},{"protocol":"udp","listenPort":15000,"targetPort":5000}]');
  assert.is(forwardsHash([]), crypto.createHash('sha256').update('[]').digest('hex'));
  assert.is(forwardsHashOfJson('[{"listenPort":2,"targetPort":3,"protocol":"udp"},{"protocol":"tcp","listenPort":9,"targetPort":1}]'),
    crypto.createHash('sha256').update('[{"protocol":"tcp","listenPort":9,"targetPort":1},{"protocol":"udp","listenPort":2,"targetPort":3}]').digest('hex'));
  assert.is(forwardsHashOfJson('[]'), forwardsHash([]));
});

t('payload: nonce(12) || ciphertext || tag(16), key SHA-256(hwid + salt); a flipped bit fails the tag', () => {
  const key = deviceKey('hw', 'salt-salt-salt-salt');
  assert.equal(key, crypto.createHash('sha256').update('hwsalt-salt-salt-salt').digest());
  const blob = encryptPayload('{"a":1}', key);
  const raw = Buffer.from(blob, 'base64');
  assert.is(raw.length, 12 + 7 + 16);
  assert.is(decryptPayload(blob, key), '{"a":1}');
  raw[14] ^= 1;
  assert.throws(() => decryptPayload(raw.toString('base64'), key));
  assert.throws(() => decryptPayload(blob, deviceKey('hx', 'salt-salt-salt-salt')));
});

t('identifiers: any-case UUIDs; hwids of 1 to 128 printable ASCII characters without spaces', () => {
  assert.ok(isUuid('8F7E6D5C-4B3A-4291-8A7B-6C5D4E3F2A1B'));
  for (const bad of ['', '8f7e6d5c4b3a42918a7b6c5d4e3f2a1b', '{8f7e6d5c-4b3a-4291-8a7b-6c5d4e3f2a1b}', 'g'.repeat(8) + '-4b3a-4291-8a7b-6c5d4e3f2a1b', 7, null]) {
    assert.not.ok(isUuid(bad), String(bad));
  }
  assert.ok(isHardwareId('!'));
  assert.ok(isHardwareId('~'.repeat(128)));
  for (const bad of ['', ' ', 'a b', 'x'.repeat(129), '\u00e9', 'a\nb', '\u007f', 1]) assert.not.ok(isHardwareId(bad), JSON.stringify(bad));
});

t('salt: configured wins; else made once (0600) and read back; a short salt file is refused', () => {
  const dir = tempDir();
  assert.equal(loadServerSalt('configured-salt-1234', dir), { salt: 'configured-salt-1234', origin: 'config', file: null });
  const made = loadServerSalt(null, dir);
  assert.is(made.origin, 'generated');
  assert.is(fs.statSync(made.file!).mode & 0o777, 0o600);
  const again = loadServerSalt(null, dir);
  assert.equal([again.origin, again.salt], ['file', made.salt]);
  fs.writeFileSync(path.join(dir, 'server-salt'), 'short\n');
  assert.throws(() => loadServerSalt(null, dir), /fewer than 16/);
});

t('limiter: blocks at the limit until the window ends, per address, and forgets the oldest past maxAddresses', () => {
  let now = 1_000_000;
  const l = new FailureLimiter({ failures: 2, windowMs: 10_000, maxAddresses: 3 }, () => now);
  l.recordFailure('a');
  assert.is(l.blockedFor('a'), 0);
  l.recordFailure('a');
  assert.is(l.blockedFor('a'), 10);
  assert.is(l.blockedFor('b'), 0);
  now += 9_001;
  assert.is(l.blockedFor('a'), 1);
  now += 999;
  assert.is(l.blockedFor('a'), 0, 'the window ended');
  for (const a of ['w', 'x', 'y', 'z']) { l.recordFailure(a); l.recordFailure(a); }
  assert.ok(l.size <= 3);
  assert.is(l.blockedFor('w'), 0, 'the oldest address was forgotten');
  assert.is(l.blockedFor('z'), 10);
});

t('limiter: a success clears its address at once, and only that one', () => {
  const l = new FailureLimiter({ failures: 2, windowMs: 10_000 }, () => 0);
  for (const a of ['nat', 'other']) { l.recordFailure(a); l.recordFailure(a); }
  l.recordSuccess('nat');
  assert.is(l.blockedFor('nat'), 0);
  l.recordFailure('nat');
  assert.is(l.blockedFor('nat'), 0, 'counting starts over from zero');
  assert.is(l.blockedFor('other'), 10);
});

t('limiter key: IPv4 as it is, IPv6 by its /64 whatever the spelling', () => {
  assert.is(limiterKey('192.0.2.7'), '192.0.2.7');
  assert.is(limiterKey('2001:db8:0:1::5'), '2001:db8:0:1::/64');
  assert.is(limiterKey('2001:0db8:0000:0001:ffff::9'), '2001:db8:0:1::/64');
  assert.is(limiterKey('2001:DB8:0:1:2:3:4:5'), '2001:db8:0:1::/64');
  assert.is(limiterKey('fe80::1%eth0'), 'fe80:0:0:0::/64');
  assert.is(limiterKey('::1'), '0:0:0:0::/64');
});

t.run();
