// Reading a peer back after a killed `wg`: the calls that make the interface hold exactly
// what the model says for that key, decided from `wg show dump` alone.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { repairOpsFor } from '../src/kernel/peer-verify';
import { SECRET_FILE } from '../src/exec/command';
import { NO_PRESHARED_KEY } from '../src/wg/keys';

const t = suite('kernel: a peer read back after a killed tool');

const KEY = 'xTIBA5rboUvnH4htodjb6e697QjLERt1NAB4mZqp8Dg=';
const PSK = 'FpCyhws9cxwWoV4xELtfJvjJN+zQVRPISllRWgeopVE=';
const peer = { id: 7, ip: '10.1.0.7', ip6: 'fd00:1::7', publicKey: KEY, presharedKey: PSK, allowAccess: [], allowInternet: false, enabled: true };
const head = 'cHJpdmF0ZQ==\tcHVibGlj\t51820\toff\n';
const line = (allowed: string, psk = PSK) => `${KEY}\t${psk}\t(none)\t${allowed}\t0\t0\t0\toff\n`;

t('a peer the interface holds as the model says needs nothing', () => {
  assert.equal(repairOpsFor('wg0', head + line('fd00:1::7/128,10.1.0.7/32'), KEY, peer), []);
});

t('a peer the interface took after its undo is removed when the model has none', () => {
  assert.equal(repairOpsFor('wg0', head + line('10.1.0.7/32,fd00:1::7/128'), KEY, null), [{ args: ['set', 'wg0', 'peer', KEY, 'remove'] }]);
});

t('a disabled peer is not to be held either', () => {
  assert.equal(repairOpsFor('wg0', head + line('10.1.0.7/32'), KEY, { ...peer, enabled: false }).map((o) => o.args.at(-1)), ['remove']);
});

t('a peer missing from the interface is set again, its preshared key through a file', () => {
  const [op] = repairOpsFor('wg0', head, KEY, peer);
  assert.equal(op.args, ['set', 'wg0', 'peer', KEY, 'preshared-key', SECRET_FILE, 'allowed-ips', '10.1.0.7/32,fd00:1::7/128']);
  assert.is(op.secret, `${PSK}\n`);
});

t('a peer held with other addresses or another preshared key is set again', () => {
  assert.is(repairOpsFor('wg0', head + line('10.1.0.9/32'), KEY, peer).length, 1);
  assert.is(repairOpsFor('wg0', head + line('10.1.0.7/32,fd00:1::7/128', 'b3RoZXI='), KEY, peer).length, 1);
});

t('a peer without a preshared key, which the dump prints as (none), needs nothing', () => {
  assert.equal(repairOpsFor('wg0', head + line('10.1.0.7/32,fd00:1::7/128', '(none)'), KEY, { ...peer, presharedKey: NO_PRESHARED_KEY }), []);
});

t('nothing held and nothing wanted needs nothing', () => {
  assert.equal(repairOpsFor('wg0', head, KEY, null), []);
});

t.run();
