import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parseDump } from '../src/wg/dump';

const t = suite('wg dump parsing');

const PRIV = 'yAnz5TF+lXXJte14tji3zlMNq+hd2rYUIgJBgB3fBmk=';
const PUB1 = 'xTIBA5rboUvnH4htodjb6e697QjLERt1NAB4mZqp8Dg=';
const PUB2 = 'TrMvSoP4jYQlY6RIzBgbssQqY3vxI2Pi+y71lOWWXX0=';
const PSK = 'FpCyhws9cxwWoV4xELtfJvjJN+zQVRPISllRWgeopVE=';

t('reads counters and handshake of every peer keyed by public key', () => {
  const text = [
    `${PRIV}\t${PUB1}\t51820\toff`,
    `${PUB1}\t${PSK}\t198.51.100.7:40123\t10.8.0.2/32\t1795000000\t1234\t5678\t25`,
    `${PUB2}\t(none)\t(none)\t10.8.0.3/32,10.9.0.0/24\t0\t0\t0\toff`,
  ].join('\n') + '\n';
  const d = parseDump(text);
  assert.is(d.listenPort, 51820);
  assert.equal(d.peers, [
    { publicKey: PUB1, endpoint: '198.51.100.7:40123', allowedIps: ['10.8.0.2/32'], latestHandshake: 1795000000, rxBytes: 1234, txBytes: 5678 },
    { publicKey: PUB2, endpoint: null, allowedIps: ['10.8.0.3/32', '10.9.0.0/24'], latestHandshake: 0, rxBytes: 0, txBytes: 0 },
  ]);
});

t('keeps byte counts beyond 32 bits exact', () => {
  const d = parseDump(`${PRIV}\t${PUB1}\t51820\toff\n${PUB1}\t(none)\t(none)\t(none)\t1\t9007199254740000\t4294967296\toff\n`);
  assert.is(d.peers[0].rxBytes, 9007199254740000);
  assert.is(d.peers[0].txBytes, 4294967296);
  assert.equal(d.peers[0].allowedIps, []);
});

t('an interface without peers gives an empty list', () => {
  assert.equal(parseDump(`${PRIV}\t${PUB1}\t0\toff\n`).peers, []);
});

t('refuses output that is not a dump', () => {
  assert.throws(() => parseDump(''), /empty/);
  assert.throws(() => parseDump(`${PRIV}\t${PUB1}\t51820\toff\n${PUB1}\tonly\tthree\n`), /expected 8/);
  assert.throws(() => parseDump(`${PRIV}\t${PUB1}\t51820\toff\n${PUB1}\t(none)\t(none)\t(none)\tsoon\t1\t2\toff\n`), /latest-handshake/);
});

t.run();
