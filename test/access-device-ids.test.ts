// A device_id is a credential: whoever sends it to the heartbeat gets the device's private
// key. Tried as a viewer and an operator would, over HTTP against a real daemon: every
// route that shows a device, its forwards, its token or its events shows at most the
// first 8 characters, and what they see does not open the heartbeat. Only an admin reads
// the whole id.
import { suiteNeeding } from './helpers/root';
import * as assert from 'uvu/assert';
import { call } from './helpers/daemon';
import { deviceFixture, pythonDecrypt, type DeviceFixture } from './device-support';

const t = suiteNeeding('roles: only an admin ever sees a whole device_id', ['python3:cryptography']);
let f: DeviceFixture;
const keys: Record<string, string> = {};
let uuid = '';
let deviceId = 0;

t.before(async () => {
  f = await deviceFixture({ mode: 'standalone' });
  for (const role of ['viewer', 'operator']) keys[role] = (await f.api.post('/api/apikeys', { name: `${role}-key`, role })).json.key;
  const token = await f.newToken();
  uuid = pythonDecrypt((await f.provision(token, 'ids-board')).json.encrypted_config, 'ids-board').device_id as string;
  const device = await f.deviceOf(uuid);
  deviceId = device.id;
  assert.is((await f.api.post(`/api/devices/${deviceId}/forwards`, { protocol: 'tcp', listenPort: 2222, targetPort: 22 })).status, 201);
  assert.is((await f.heartbeat({ device_id: uuid, status: 'connected' })).status, 200);
});
t.after(async () => { await f.d.stop(); });

const as = (role: string, method: string, path: string, body?: unknown) =>
  call(f.d.url, method, path, body, { 'wg-control-key': keys[role] ?? f.d.key, 'Content-Type': 'application/json' });

/** Every way the id could be written: as issued, upper-cased, without its dashes. */
const holdsWholeId = (text: string) => [uuid, uuid.toUpperCase(), uuid.replace(/-/g, '')].some((form) => text.toLowerCase().includes(form.toLowerCase()));

t('a viewer reads devices, a device, its forwards, stats, peers and metrics: a prefix, never the whole id', async () => {
  const reads = ['/api/devices', `/api/devices/${deviceId}`, `/api/devices/${deviceId}/forwards`, '/api/stats',
    `/api/servers/${f.serverId}/peers`, `/api/peers/${deviceId}`, '/metrics'];
  for (const path of reads) {
    const r = await as('viewer', 'GET', path);
    assert.is(r.status, 200, `${path}: ${r.text.slice(0, 200)}`);
    assert.not.ok(holdsWholeId(r.text), `${path} shows the whole device_id to a viewer`);
  }
  const shown = (await as('viewer', 'GET', `/api/devices/${deviceId}`)).json;
  assert.is(shown.uuidPrefix, uuid.slice(0, 8));
  assert.is(shown.uuid, undefined);
  assert.is(shown.id, deviceId);
});

t('an operator lists tokens, suspends, reinstates, rotates and adds forwards: the answers carry no whole id either', async () => {
  const answers = [
    await as('operator', 'GET', `/api/servers/${f.serverId}/tokens`),
    await as('operator', 'GET', '/api/devices'),
    await as('operator', 'PUT', `/api/devices/${deviceId}`, { suspended: true }),
    await as('operator', 'PUT', `/api/devices/${deviceId}`, { suspended: false }),
    await as('operator', 'POST', `/api/devices/${deviceId}/rotate`, {}),
    await as('operator', 'POST', `/api/devices/${deviceId}/forwards`, { protocol: 'udp', listenPort: 5353, targetPort: 53 }),
  ];
  for (const r of answers) {
    assert.ok(r.status < 300, `${r.status} ${r.text.slice(0, 200)}`);
    assert.not.ok(holdsWholeId(r.text), `an operator was shown the whole device_id: ${r.text.slice(0, 300)}`);
  }
  const token = (answers[0].json as { deviceID: number | null }[]).find((x) => x.deviceID !== null)!;
  assert.is(token.deviceID, deviceId, 'a used token names its device by the device\'s id');
});

t('what a viewer or operator sees does not open the heartbeat: not the prefix, not the device\'s id', async () => {
  const seen = (await as('viewer', 'GET', `/api/devices/${deviceId}`)).json;
  for (const guess of [seen.uuidPrefix, String(seen.id), String(seen.peerID)]) {
    const r = await f.heartbeat({ device_id: guess });
    assert.equal([r.status, r.json], [400, { error: 'invalid device id' }], guess);
  }
});

t('an admin reads the whole id; routes take the device\'s id, never the device_id', async () => {
  const admin = (await f.api.get(`/api/devices/${deviceId}`)).json;
  assert.is(admin.uuid, uuid);
  for (const role of ['viewer', 'operator', 'admin']) {
    const r = await as(role, 'GET', `/api/devices/${uuid}`);
    assert.equal([r.status, r.json], [404, { error: 'device not found' }], `${role} by device_id`);
  }
});

t('the audit log names the device by its prefix, even to an admin', async () => {
  const r = await f.api.get('/api/audit');
  assert.is(r.status, 200);
  assert.ok(r.text.includes(uuid.slice(0, 8)), 'the prefix is there');
  assert.not.ok(holdsWholeId(r.text), 'the whole id is not');
});

t.run();
