// Heartbeat reports reach flash sparingly: each device's newest report is kept, and the kept
// ones are written together once a flush interval (WGCP_HEARTBEAT_FLUSH_S), so 100 agents at
// 30 s cost one write a device a minute, not one a heartbeat.
import * as assert from 'uvu/assert';
import { suiteNeeding } from './helpers/root';
import { deviceFixture, pythonDecrypt, type DeviceFixture } from './device-support';

const t = suiteNeeding('device heartbeats are written once a flush interval, newest report only', ['python3:cryptography']);
let f: DeviceFixture;
t.before(async () => { f = await deviceFixture({ env: { WGCP_HEARTBEAT_FLUSH_S: '1' } }); });
t.after(async () => { await f.d.stop(); });

async function device(hwid: string): Promise<string> {
  const r = await f.provision(await f.newToken(), hwid);
  return (pythonDecrypt(r.json.encrypted_config, hwid) as { device_id: string }).device_id;
}

const changes = (): number => f.d.daemon.app.store.db.prepare('SELECT total_changes()').pluck().get() as number;
const row = (id: string) => f.d.daemon.app.store.db.prepare('SELECT status, state, last_seen_at AS seen FROM devices WHERE device_id = ?').get(id) as { status: string; state: string; seen: string | null };

t('five heartbeats of one device and one of another are two row writes, at the next flush', async () => {
  const a = await device('writes-a');
  const b = await device('writes-b');
  const before = changes();
  for (let i = 0; i < 5; i++) assert.is((await f.heartbeat({ device_id: a, status: 'connected', state: `S${i}` })).status, 200);
  assert.is((await f.heartbeat({ device_id: b, status: 'connected' })).status, 200);
  assert.is(changes(), before, 'nothing written yet');
  assert.is(row(a).seen, null);
  // The flush has come when both devices' rows show a last heartbeat; then count what it wrote.
  for (const deadline = Date.now() + 10_000; row(a).seen === null || row(b).seen === null;) {
    assert.ok(Date.now() < deadline, 'the flush wrote both devices\' reports');
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.is(changes() - before, 2);
  assert.equal([row(a).status, row(a).state], ['connected', 'S4']);
});

t('a newer report keeps what it leaves out from the older one waiting with it', async () => {
  const c = await device('writes-c');
  await f.heartbeat({ device_id: c, status: 'connected', state: 'HEARTBEAT' });
  await f.heartbeat({ device_id: c, status: 'recovering' });
  const shown = (await f.api.get(`/api/devices/${c}`)).json;
  assert.equal([shown.status, shown.state], ['recovering', 'HEARTBEAT'], 'an admin read stores what waits first');
});

t.run();
