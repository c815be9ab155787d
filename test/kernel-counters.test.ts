import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { countersOfDump } from '../src/kernel/peer-counters';

const t = suite('the usage cycle\'s counters from a wg dump, read in one pass');

const PRIV = 'yAnz5TF+lXXJte14tji3zlMNq+hd2rYUIgJBgB3fBmk=';
const PUB1 = 'xTIBA5rboUvnH4htodjb6e697QjLERt1NAB4mZqp8Dg=';
const PUB2 = 'TrMvSoP4jYQlY6RIzBgbssQqY3vxI2Pi+y71lOWWXX0=';
const PSK = 'FpCyhws9cxwWoV4xELtfJvjJN+zQVRPISllRWgeopVE=';
const DUMP = [
  `${PRIV}\t${PUB1}\t51820\toff`,
  `${PUB1}\t${PSK}\t198.51.100.7:40123\t10.8.0.2/32,fd00::2/128\t1795000000\t1234\t9007199254740000\t25`,
  `${PUB2}\t(none)\t(none)\t(none)\t0\t0\t0\toff`,
].join('\n') + '\n';

t('gives each peer\'s handshake, byte counts and endpoint (when it has one) by public key, beyond 32 bits exact', () => {
  const got = countersOfDump(DUMP);
  assert.equal([...got.keys()], [PUB1, PUB2]);
  assert.equal(got.get(PUB1), { latestHandshake: 1795000000, rxBytes: 1234, txBytes: 9007199254740000, endpoint: '198.51.100.7:40123' });
  assert.equal(got.get(PUB2), { latestHandshake: 0, rxBytes: 0, txBytes: 0 });
});

t('reads the last line without its newline, and an interface without peers as none', () => {
  assert.is(countersOfDump(DUMP.trimEnd()).get(PUB2)?.rxBytes, 0);
  assert.equal(countersOfDump(`${PRIV}\t${PUB1}\t0\toff\n`).size, 0);
});

t('refuses output that is not a dump', () => {
  assert.throws(() => countersOfDump(''), /empty/);
  assert.throws(() => countersOfDump(`${PRIV}\t${PUB1}\t51820\toff\n${PUB1}\tonly\tthree\n`), /expected 8/);
  assert.throws(() => countersOfDump(`${PRIV}\t${PUB1}\t51820\toff\n${PUB1}\t(none)\t(none)\t(none)\tsoon\t1\t2\toff\n`), /latest-handshake/);
  assert.throws(() => countersOfDump(`${PRIV}\t${PUB1}\t51820\toff\n${PUB1}\t(none)\t(none)\t(none)\t1\t-1\t2\toff\n`), /transfer-rx/);
});

t.run();
