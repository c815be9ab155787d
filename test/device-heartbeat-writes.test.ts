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
const row = (id: string) => {
  const d = f.d.daemon.app.store.devices.get(id)!;
  return { status: d.status, state: d.state, seen: d.lastSeenAt };
};

t('five heartbeats of one device and one of another are two devices written at the next flush (each its report row and its narrow seen row)', async () => {
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
  assert.is(changes() - before, 4);
  assert.equal([row(a).status, row(a).state], ['connected', 'S4']);
});

t('a report that changes no reported field writes only the narrow seen row, with the new time and handshake', async () => {
  const e = await device('writes-e');
  const body = { device_id: e, status: 'connected', state: 'HEARTBEAT', tunnel_up: true };
  await f.heartbeat({ ...body, last_handshake: '2026-11-25T01:00:00.000Z' });
  f.d.daemon.app.services.device.heartbeats.flush();
  const first = row(e).seen;
  // Writes of the wide row counted by a temporary trigger on the daemon's own connection.
  const db = f.d.daemon.app.store.db;
  db.exec(`CREATE TEMP TABLE wide_writes (n INTEGER); CREATE TEMP TRIGGER count_wide AFTER UPDATE ON main.devices BEGIN INSERT INTO wide_writes VALUES (1); END;`);
  const wide = () => db.prepare('SELECT COUNT(*) FROM temp.wide_writes').pluck().get() as number;
  await new Promise((r) => setTimeout(r, 5));
  await f.heartbeat({ ...body, last_handshake: '2026-11-25T01:02:00.000Z' });
  f.d.daemon.app.services.device.heartbeats.flush();
  assert.is(wide(), 0, 'the wide devices row is not written');
  const d = f.d.daemon.app.store.devices.get(e)!;
  assert.ok(d.lastSeenAt! > first!, 'the time seen moved');
  assert.is(d.lastHandshake, '2026-11-25T01:02:00.000Z');
  await f.heartbeat({ ...body, status: 'recovering' });
  f.d.daemon.app.services.device.heartbeats.flush();
  assert.is(f.d.daemon.app.store.devices.get(e)!.status, 'recovering', 'a changed field still reaches the wide row');
  assert.is(wide(), 1);
  db.exec('DROP TRIGGER temp.count_wide; DROP TABLE temp.wide_writes;');
});

t('a newer report keeps what it leaves out from the older one waiting with it', async () => {
  const c = await device('writes-c');
  await f.heartbeat({ device_id: c, status: 'connected', state: 'HEARTBEAT' });
  await f.heartbeat({ device_id: c, status: 'recovering' });
  const shown = (await f.api.get(`/api/devices/${(await f.deviceOf(c)).id}`)).json;
  assert.equal([shown.status, shown.state], ['recovering', 'HEARTBEAT'], 'an admin read stores what waits first');
});

t.run();
