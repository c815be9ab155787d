// A change whose effect is a deletion needs the role that may delete peers (admin), whatever
// route it takes: an expiry that the expiry job will act on, a device removed with its
// peer. Real keys over HTTP against a real daemon, and the real expiry job.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { client } from './helpers/daemon';
import { deviceFixture, type DeviceFixture } from './device-support';
import { expirePeers } from '../src/jobs/calendar';

const t = suite('access: a change that deletes needs the role that may delete');
let f: DeviceFixture;
let operator: ReturnType<typeof client>;
let admin: ReturnType<typeof client>;
// The daemon's clock, moved forward past an expiry instead of waiting for it.
let offsetMs = 0;
const now = () => new Date(Date.now() + offsetMs);

t.before(async () => {
  f = await deviceFixture({ options: { now, events: { schedule: false } } });
  admin = f.api;
  const made = await admin.post('/api/apikeys', { name: 'desk', role: 'operator' });
  operator = client({ url: f.d.url, key: made.json.key });
});
t.after(async () => { await f.d.stop(); });

const soon = (ms: number) => new Date(now().getTime() + ms).toISOString();
const newPeer = async (body: Record<string, unknown> = {}) => (await admin.post(`/api/servers/${f.serverId}/peers`, { name: 'phone', ...body })).json;

t('an operator cannot give a peer an expiry (403 naming admin and the field), and the expiry job then leaves it', async () => {
  const peer = await newPeer();
  const r = await operator.put(`/api/peers/${peer.id}`, { expiresAt: soon(5_000) });
  assert.is(r.status, 403, r.text);
  assert.equal([r.json.role, r.json.field], ['admin', 'expiresAt']);
  assert.match(r.json.error, /^forbidden: needs role admin/);
  assert.is((await admin.get(`/api/peers/${peer.id}`)).json.expiresAt, null, 'nothing was changed');
  offsetMs += 120_000;
  assert.equal(await expirePeers(f.d.daemon.app), []);
  assert.is((await admin.get(`/api/peers/${peer.id}`)).status, 200, 'the peer is still there after the expiry job');
});

t('an operator cannot bring an expiry nearer; may postpone it, clear it, and change the rest of a peer that has one', async () => {
  const peer = await newPeer({ expiresAt: soon(3_600_000) });
  assert.is((await operator.put(`/api/peers/${peer.id}`, { expiresAt: soon(5_000) })).status, 403);
  assert.is((await operator.put(`/api/peers/${peer.id}`, { name: 'renamed' })).status, 200);
  const later = soon(7_200_000);
  const postponed = await operator.put(`/api/peers/${peer.id}`, { expiresAt: later });
  assert.is(postponed.status, 200, postponed.text);
  assert.is(postponed.json.expiresAt, later);
  assert.is((await operator.put(`/api/peers/${peer.id}`, { expiresAt: null })).json.expiresAt, null);
});

t('an operator may hand out a new peer with an expiry: nothing that exists is deleted sooner', async () => {
  const r = await operator.post(`/api/servers/${f.serverId}/peers`, { name: 'guest', expiresAt: soon(86_400_000) });
  assert.is(r.status, 201, r.text);
});

t('an admin may set an expiry, and the expiry job deletes the peer', async () => {
  const peer = await newPeer();
  assert.is((await admin.put(`/api/peers/${peer.id}`, { expiresAt: soon(5_000) })).status, 200);
  offsetMs += 120_000;
  assert.ok((await expirePeers(f.d.daemon.app)).includes(peer.id));
  assert.is((await admin.get(`/api/peers/${peer.id}`)).status, 404);
});

t('an operator cannot remove a device (it removes its peer); the device and its peer stay; an admin can', async () => {
  const answer = await f.provision(await f.newToken(), 'hw-deletion-rights-1');
  assert.is(answer.status, 200, answer.text);
  const [device] = (await admin.get('/api/devices')).json;
  const r = await operator.del(`/api/devices/${device.id}`);
  assert.equal([r.status, r.json.role], [403, 'admin']);
  assert.is((await admin.get(`/api/devices/${device.id}`)).status, 200);
  assert.is((await admin.get(`/api/peers/${device.peerID}`)).status, 200);
  assert.is((await operator.put(`/api/devices/${device.id}`, { suspended: true })).status, 200, 'suspending stays an operator\'s');
  assert.is((await admin.del(`/api/devices/${device.id}`)).status, 204);
  assert.is((await admin.get(`/api/peers/${device.peerID}`)).status, 404);
});

t.run();
