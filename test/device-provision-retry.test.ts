// The opt-in retry window (WGCP_PROVISION_RETRY_WINDOW, outside the device contract): a
// device that lost the answer comes back with the same token and hwid and gets the same
// configuration again, but never once anything has happened to the device since.
import { suiteNeeding } from './helpers/root';
import * as assert from 'uvu/assert';
import type { WgcpEvent } from '../src/events/bus';
import { deviceFixture, pythonDecrypt, type DeviceFixture } from './device-support';

const t = suiteNeeding('device API: the opt-in provisioning retry window', ['python3:cryptography']);
let f: DeviceFixture;
let nowMs = Date.parse('2026-11-22T10:00:00.000Z');
const events: WgcpEvent[] = [];
/** Each step a second apart, as a device and an admin would be. */
const tick = () => { nowMs += 1000; };

t.before(async () => {
  f = await deviceFixture({ env: { WGCP_PROVISION_RETRY_WINDOW: '600' }, options: { now: () => new Date(nowMs) } });
  f.d.daemon.app.events.subscribe((e) => events.push(e));
});
t.after(async () => { await f.d.stop(); });

const used = (r: { status: number; json: unknown }, why: string) => assert.equal([r.status, r.json], [400, { error: 'token already used' }], why);

async function provisioned(token: string, hwid: string) {
  const r = await f.provision(token, hwid);
  assert.is(r.status, 200, r.text);
  tick();
  return pythonDecrypt(r.json.encrypted_config, hwid) as Record<string, string>;
}

t('within the window the same token and hwid get the same configuration again: no second device, no event, one audit row', async () => {
  const start = nowMs;
  const token = await f.newToken();
  const first = await provisioned(token, 'strand-1');
  const devicesBefore = (await f.api.get('/api/devices')).json.length;
  events.length = 0;
  nowMs = start + 600_000 - 1;
  const again = await f.provision(token, 'strand-1');
  assert.is(again.status, 200);
  assert.equal(pythonDecrypt(again.json.encrypted_config, 'strand-1'), first, 'the same payload (keys, address, device_id)');
  assert.is((await f.api.get('/api/devices')).json.length, devicesBefore);
  assert.equal(events, [], 'nothing changed, nothing announced');
  const audit = (await f.api.get('/api/audit?action=device.provision')).json;
  assert.match(JSON.stringify(audit.entries[0]), '"replay":true', 'the retry is on the audit record');
  used(await f.provision(token, 'strand-2'), 'another hwid with the same token');
  nowMs = start + 600_000;
  used(await f.provision(token, 'strand-1'), 'the same hwid once the window is over');
  tick();
});

t('twelve concurrent provisions of one token and one hwid all get the one device (the window\'s cost: one device, answered twelve times)', async () => {
  const token = await f.newToken();
  const before = (await f.api.get('/api/devices')).json.length;
  const results = await Promise.all(Array.from({ length: 12 }, () => f.provision(token, 'herd-same')));
  assert.equal(results.map((r) => r.status), Array(12).fill(200));
  const ids = new Set(results.map((r) => pythonDecrypt(r.json.encrypted_config, 'herd-same').device_id));
  assert.is(ids.size, 1);
  assert.is((await f.api.get('/api/devices')).json.length, before + 1);
  tick();
});

t('never after a suspension, even one lifted since', async () => {
  const token = await f.newToken();
  const first = await provisioned(token, 'strand-susp');
  const device = await f.deviceOf(first.device_id);
  assert.is((await f.api.put(`/api/devices/${device.id}`, { suspended: true })).status, 200);
  tick();
  used(await f.provision(token, 'strand-susp'), 'suspended');
  assert.is((await f.api.put(`/api/devices/${device.id}`, { suspended: false })).status, 200);
  tick();
  used(await f.provision(token, 'strand-susp'), 'reinstated after a suspension');
});

t('never after a key rotation: the old token does not hand out the new keys', async () => {
  const token = await f.newToken();
  const first = await provisioned(token, 'strand-rot');
  assert.is((await f.api.post(`/api/devices/${(await f.deviceOf(first.device_id)).id}/rotate`, {})).status, 200);
  tick();
  used(await f.provision(token, 'strand-rot'), 'rotated');
});

t('never after the device was deleted, nor after the hwid enrolled again with another token', async () => {
  const gone = await f.newToken();
  const first = await provisioned(gone, 'strand-del');
  assert.is((await f.api.del(`/api/devices/${(await f.deviceOf(first.device_id)).id}`)).status, 204);
  tick();
  used(await f.provision(gone, 'strand-del'), 'deleted');

  const older = await f.newToken();
  await provisioned(older, 'strand-again');
  await provisioned(await f.newToken(), 'strand-again');
  used(await f.provision(older, 'strand-again'), 'a later enrolment gave the device other keys');
});

t.run();
