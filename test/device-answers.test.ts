// The kept heartbeat answers (device/heartbeat-answers): a kept answer is served only while
// the store has not changed since it was made, so every admin change reaches the very next
// heartbeat; heartbeat reports themselves do not count as changes.
import { suiteNeeding } from './helpers/root';
import * as assert from 'uvu/assert';
import { HeartbeatAnswers, renderHeartbeatAnswer } from '../src/device/heartbeat-answers';
import { deviceFixture, pythonDecrypt, type DeviceFixture } from './device-support';

const t = suiteNeeding('device API: kept heartbeat answers', ['python3:cryptography']);
let f: DeviceFixture;

t.before(async () => { f = await deviceFixture(); });
t.after(async () => { await f.d.stop(); });

const store = () => f.d.daemon.app.store;

async function newDevice(hwid: string): Promise<string> {
  const r = await f.provision(await f.newToken(), hwid);
  assert.is(r.status, 200, r.text);
  return (pythonDecrypt(r.json.encrypted_config, hwid) as { device_id: string }).device_id;
}

t('the store revision moves with an admin change and stays with stored heartbeat reports', async () => {
  const id = await newDevice('ans-revision');
  const before = store().revision();
  assert.is((await f.heartbeat({ device_id: id, status: 'connected', state: 'HEARTBEAT', tunnel_up: true })).status, 200);
  f.d.daemon.app.services.device.heartbeats.flush();
  assert.is(store().devices.get(id)!.status, 'connected', 'the report was written');
  assert.is(store().revision(), before, 'a report is not a change of the answer');
  assert.is((await f.api.put(`/api/servers/${f.serverId}`, { dns: '9.9.9.9' })).status, 200);
  assert.is.not(store().revision(), before);
});

t('an answer is kept while nothing changes and made again after a change', async () => {
  const id = await newDevice('ans-kept');
  const answers = new HeartbeatAnswers(store(), 10);
  const first = answers.get(id)!;
  assert.is(answers.get(id), first, 'the same kept object');
  assert.equal(first, { suspended: false, body: renderHeartbeatAnswer(id, store().devices.heartbeatView(id)!), networks: '' });
  assert.is((await f.api.post(`/api/devices/${(await f.deviceOf(id)).id}/rotate`, undefined)).status, 200);
  const second = answers.get(id)!;
  assert.is.not(second, first);
  assert.is.not(JSON.parse(second.body!).private_key, JSON.parse(first.body!).private_key, 'the rotated key is in the new answer');
  assert.is(answers.get('8f7e6d5c-4b3a-4291-8a7b-6c5d4e3f2a1b'), undefined, 'an unknown device has no answer');
  assert.is(answers.size, 1, 'and none is kept for it');
});

t('at most the limit is kept; the oldest goes first', async () => {
  const ids = [await newDevice('ans-limit-a'), await newDevice('ans-limit-b'), await newDevice('ans-limit-c')];
  const answers = new HeartbeatAnswers(store(), 2);
  const a = answers.get(ids[0]);
  const b = answers.get(ids[1]);
  answers.get(ids[2]);
  assert.is(answers.size, 2);
  assert.is(answers.get(ids[1]), b, 'b is still kept');
  assert.is.not(answers.get(ids[0]), a, 'a was let go and made again');
  assert.equal(answers.get(ids[0]), a, 'with the same content');
  const none = new HeartbeatAnswers(store(), 0);
  assert.equal(none.get(ids[0]), a, 'a limit of 0 (WGCP_HEARTBEAT_CACHE=0) still answers');
  assert.is(none.size, 0, 'but keeps nothing');
});

t('every kind of admin change reaches the next heartbeat answer', async () => {
  const id = await newDevice('ans-changes');
  const beat = async () => f.heartbeat({ device_id: id, status: 'connected' });
  const first = (await beat()).json;
  assert.is((await beat()).text, JSON.stringify(first), 'unchanged between two heartbeats');

  assert.is((await f.api.put(`/api/servers/${f.serverId}`, { endpoint: 'vpn2.example.com:51999', dns: '9.9.9.9' })).status, 200);
  let now = (await beat()).json;
  assert.equal([now.endpoint, now.dns], ['vpn2.example.com:51999', '9.9.9.9'], 'server endpoint and dns');

  const device = await f.deviceOf(id);
  assert.is(now.allowed_ips, '10.44.0.0/24');
  assert.is((await f.api.put(`/api/peers/${device.peerID}`, { allowInternet: true })).status, 200);
  now = (await beat()).json;
  assert.is(now.allowed_ips, '0.0.0.0/0, ::/0', "the peer's allowInternet");

  assert.is((await f.api.put(`/api/devices/${device.id}`, { suspended: true })).status, 200);
  assert.equal((await beat()).json, { error: 'device is suspended', code: 'WGCP_DEVICE_SUSPENDED' }, 'suspension');
  assert.is((await f.api.put(`/api/devices/${device.id}`, { suspended: false })).status, 200);
  assert.is((await beat()).status, 200, 'reinstatement');

  assert.is((await f.api.del(`/api/devices/${device.id}`)).status, 204);
  const gone = await beat();
  assert.equal([gone.status, gone.json], [404, { error: 'device not found', code: 'WGCP_DEVICE_NOT_FOUND' }], 'deletion');
});

t.run();
