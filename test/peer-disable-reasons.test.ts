import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import Database from 'better-sqlite3';
import path from 'node:path';
import { countingKernel } from './helpers/counting-kernel';
import { deviceFixture, type DeviceFixture } from './device-support';
import { tempDir } from './helpers/daemon';
import { GB } from '../src/peer-state';
import { collectUsage } from '../src/jobs/usage';
import { resetIfNewMonth } from '../src/jobs/calendar';
import { migrate } from '../src/store/db';
import { MIGRATIONS } from '../src/store/migrations';

const t = suite('a peer is off for a set of reasons, each lifted only by its owner');

let f: DeviceFixture;
const k = countingKernel();
const clock = { now: new Date(2026, 10, 15, 12, 0, 0) };
t.before(async () => {
  f = await deviceFixture({ options: { kernel: k.kernel, now: () => clock.now, events: { schedule: false } } });
  await resetIfNewMonth(f.d.daemon.app); // records the current month
});
t.after(async () => { await f.d.stop(); });

let hw = 0;
/** A provisioned device and its peer's id. */
async function device(): Promise<{ deviceId: number; peerId: number }> {
  const token = await f.newToken();
  const hwid = `reasons-${++hw}`;
  const r = await f.provision(token, hwid);
  assert.is(r.status, 200, r.text);
  const found = (await f.api.get('/api/devices')).json.find((d: { hwid: string }) => d.hwid === hwid);
  return { deviceId: found.id, peerId: found.peerID };
}

const peer = async (id: number) => (await f.api.get(`/api/peers/${id}`)).json;
const suspend = (deviceId: number, suspended: boolean) => f.api.put(`/api/devices/${deviceId}`, { suspended });

async function overLimit(peerId: number): Promise<void> {
  assert.is((await f.api.put(`/api/peers/${peerId}`, { dataLimitGB: 1 })).status, 200);
  k.counters.set((await peer(peerId)).publicKey, { rxBytes: 2 * GB, txBytes: 0, latestHandshake: 1 });
  await collectUsage(f.d.daemon.app);
  k.counters.clear();
}

t('a suspended device stays off across a monthly reset that lifts its data limit', async () => {
  const d = await device();
  await overLimit(d.peerId);
  assert.equal((await peer(d.peerId)).disabledReasons, ['data_limit']);
  assert.is((await suspend(d.deviceId, true)).status, 200);
  assert.equal((await peer(d.peerId)).disabledReasons, ['suspended', 'data_limit']);
  clock.now = new Date(2026, 11, 1, 0, 0, 5);
  assert.is(await resetIfNewMonth(f.d.daemon.app), true);
  const after = await peer(d.peerId);
  assert.is(after.enabled, false);
  assert.is(after.disabledReason, 'suspended');
  assert.equal(after.disabledReasons, ['suspended']);
  assert.is((await suspend(d.deviceId, false)).status, 200);
  assert.is((await peer(d.peerId)).enabled, true);
});

t('a suspension survives a raised data limit and an expiry change', async () => {
  const d = await device();
  await overLimit(d.peerId);
  await suspend(d.deviceId, true);
  const raised = await f.api.put(`/api/peers/${d.peerId}`, { dataLimitGB: 100 });
  assert.is(raised.json.enabled, false);
  assert.equal(raised.json.disabledReasons, ['suspended']);
  const moved = await f.api.put(`/api/peers/${d.peerId}`, { expiresAt: '2030-01-01T00:00:00Z' });
  assert.is(moved.json.enabled, false);
  assert.is(moved.json.disabledReason, 'suspended');
});

t("an admin's enable lifts only the admin's own disable, never a suspension", async () => {
  const d = await device();
  await suspend(d.deviceId, true);
  const on = await f.api.put(`/api/peers/${d.peerId}`, { enabled: true });
  assert.is(on.status, 200);
  assert.is(on.json.enabled, false);
  assert.equal(on.json.disabledReasons, ['suspended']);
});

t('reinstating a device an admin also disabled leaves it off for the admin', async () => {
  const d = await device();
  await suspend(d.deviceId, true);
  assert.equal((await f.api.put(`/api/peers/${d.peerId}`, { enabled: false })).json.disabledReasons, ['admin', 'suspended']);
  await suspend(d.deviceId, false);
  const p = await peer(d.peerId);
  assert.is(p.enabled, false);
  assert.equal(p.disabledReasons, ['admin']);
  assert.is((await f.api.put(`/api/peers/${d.peerId}`, { enabled: true })).json.enabled, true);
});

t('an admin disable survives a raised limit after the limit restricted the peer first', async () => {
  const d = await device();
  await overLimit(d.peerId);
  await f.api.put(`/api/peers/${d.peerId}`, { enabled: false });
  const raised = await f.api.put(`/api/peers/${d.peerId}`, { dataLimitGB: 100 });
  assert.is(raised.json.enabled, false);
  assert.equal(raised.json.disabledReasons, ['admin']);
});

t('the kernel follows the set: a peer leaves the interface once and returns only when the set is empty', async () => {
  const d = await device();
  k.applied.length = 0;
  await suspend(d.deviceId, true);
  await f.api.put(`/api/peers/${d.peerId}`, { enabled: false });
  await suspend(d.deviceId, false);
  const enabledSeen = k.applied.filter((c) => c.after?.id === d.peerId).map((c) => c.after!.enabled);
  assert.ok(enabledSeen.every((e) => e === false), 'never back on while a reason holds it');
});

t('an older database moves a suspended device peer from "admin" to "suspended"', () => {
  const file = path.join(tempDir(), 'old.db');
  const db = new Database(file);
  migrate(db, MIGRATIONS.slice(0, 4));
  const now = '2026-01-01T00:00:00.000Z';
  db.prepare(`INSERT INTO servers (id, name, endpoint, mode, interface, address, listen_port, dns, private_key, public_key, created_at, updated_at)
    VALUES (1, 's', 'h:1', 'forward', 'wgcp1', '10.1.0.1/24', 51820, '10.1.0.1', 'k', 'K', ?, ?)`).run(now, now);
  const addPeer = db.prepare(`INSERT INTO peers (id, server_id, ip, public_key, preshared_key, enabled, disabled_reason, created_at, updated_at)
    VALUES (?, 1, ?, ?, 'psk', ?, ?, ?, ?)`);
  addPeer.run(1, '10.1.0.2', 'A', 0, 'admin', now, now);
  addPeer.run(2, '10.1.0.3', 'B', 0, 'admin', now, now);
  addPeer.run(3, '10.1.0.4', 'C', 0, 'data_limit', now, now);
  addPeer.run(4, '10.1.0.5', 'D', 1, '', now, now);
  db.prepare(`INSERT INTO devices (device_id, server_id, peer_id, hwid, suspended, provisioned_at, created_at, updated_at)
    VALUES ('d1', 1, 1, 'hw', 1, ?, ?, ?)`).run(now, now, now);
  migrate(db, MIGRATIONS);
  const reasons = db.prepare('SELECT id, disabled_reasons AS r FROM peers ORDER BY id').all();
  assert.equal(reasons, [{ id: 1, r: 'suspended' }, { id: 2, r: 'admin' }, { id: 3, r: 'data_limit' }, { id: 4, r: '' }]);
  db.close();
});

t.run();
