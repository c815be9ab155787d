// device_id is a credential: whoever presents it gets the device's keys from the heartbeat.
// So it never reaches the log above debug, whatever happens to the device.
import { suiteNeeding } from './helpers/root';
import * as assert from 'uvu/assert';
import { createLogger } from '../src/log';
import { deviceFixture, pythonDecrypt, type DeviceFixture } from './device-support';

const t = suiteNeeding('device_id stays out of the log above debug', ['python3:cryptography']);
const lines: { level: string; text: string }[] = [];
let f: DeviceFixture;

t.before(async () => {
  const log = createLogger('debug', (l) => { lines.push({ level: JSON.parse(l).level, text: l }); });
  f = await deviceFixture({ env: { WGCP_LOG_LEVEL: 'debug' }, options: { log, events: { schedule: false } } });
});
t.after(async () => { await f.d.stop(); });

const aboveDebug = (id: string) => lines.filter((l) => l.level !== 'debug' && l.text.includes(id)).map((l) => l.text);

t('provisioning and re-provisioning log the device by a short prefix only', async () => {
  const first = pythonDecrypt((await f.provision(await f.newToken(), 'log-board')).json.encrypted_config, 'log-board');
  await f.provision(await f.newToken(), 'log-board');
  const id = first.device_id as string;
  const provisioned = lines.filter((l) => l.text.includes('device provisioned'));
  assert.is(provisioned.length, 2);
  for (const l of provisioned) assert.is(JSON.parse(l.text).device, id.slice(0, 8));
  assert.equal(aboveDebug(id), []);
});

t('a heartbeat that fails on the server logs the error without the device_id', async () => {
  const cfg = pythonDecrypt((await f.provision(await f.newToken(), 'broken-board')).json.encrypted_config, 'broken-board');
  const id = cfg.device_id as string;
  // A peer row without its private key (as an older version could leave it): the answer cannot be built.
  f.d.daemon.app.store.db.prepare('UPDATE peers SET private_key = NULL WHERE name = ?').run('device-broken-board');
  const r = await f.heartbeat({ device_id: id });
  assert.is(r.status, 500);
  const failed = lines.find((l) => l.text.includes('heartbeat failed'));
  assert.ok(failed, 'the failure is logged');
  assert.match(failed!.text, new RegExp(id.slice(0, 8)), 'the prefix tells which device');
  assert.equal(aboveDebug(id), []);
});

t.run();
