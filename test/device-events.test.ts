import { suiteNeeding } from './helpers/root';
import * as assert from 'uvu/assert';
import WebSocket from 'ws';
import { Receiver, eventually } from './helpers/receiver';
import { deviceFixture, pythonDecrypt, type DeviceFixture } from './device-support';
import { envelopeOf } from '../src/events/webhook-render';

const t = suiteNeeding('device events: webhooks and the live stream hear provisioned and suspended', ['python3:cryptography']);
let f: DeviceFixture;
let rx: Receiver;
let ws: WebSocket;
const streamed: any[] = [];

t.before(async () => {
  f = await deviceFixture({ mode: 'standalone', options: { events: { retryBaseMs: 100, timeoutMs: 2000, schedule: false } } });
  rx = await Receiver.start();
  const hook = await f.api.post(`/api/servers/${f.serverId}/webhooks`, { name: 'fleet', url: rx.url, subscribedActions: [6, 7] });
  assert.is(hook.status, 201, hook.text);
  ws = new WebSocket(f.d.url.replace('http:', 'ws:') + '/api/events', { headers: { 'wg-control-key': f.d.key } });
  ws.on('message', (data) => streamed.push(JSON.parse(String(data))));
  await new Promise<void>((resolve, reject) => { ws.once('open', () => resolve()); ws.once('error', reject); });
});
t.after(async () => {
  ws.terminate();
  await rx.close();
  await f.d.stop();
});

t('a provisioning reaches the subscribed webhook as action 6 and the stream as deviceProvisioned', async () => {
  const r = await f.provision(await f.newToken(), 'evt-board');
  const cfg = pythonDecrypt(r.json.encrypted_config, 'evt-board');
  const [req] = await rx.waitFor(1);
  const body = JSON.parse(req.body);
  assert.equal([body.action, body.event, body.serverID], [6, 'deviceProvisioned', f.serverId]);
  assert.not.ok(req.body.includes(cfg.private_key as string), 'no key in the webhook');
  const live = await eventually('the stream event', () => streamed.find((m) => m.event === 'deviceProvisioned'));
  assert.is(live.data.device.hwid, 'evt-board');
});

t('the device_id is a credential: webhooks and the stream carry its first 8 characters, never the whole', async () => {
  const device = (await f.api.get('/api/devices')).json[0];
  assert.match(device.uuid, /^[0-9a-f-]{36}$/, 'the admin API shows the whole id');
  const webhook = JSON.parse(rx.received[0].body);
  const live = streamed.find((m) => m.event === 'deviceProvisioned');
  for (const shown of [webhook.data.device, live.data.device]) {
    assert.is(shown.uuidPrefix, device.uuid.slice(0, 8));
    assert.is(shown.uuid, undefined);
    assert.is(shown.id, device.id, 'the device\'s id (its peer\'s) ties the event to the device');
  }
  assert.not.ok(rx.received[0].body.includes(device.uuid), 'nowhere in the webhook body');
  assert.not.ok(JSON.stringify(live).includes(device.uuid), 'nowhere in the stream message');
});

t('any device id in event data leaves as a prefix: device.uuid or a string device.id, and deviceID strings at any depth', () => {
  const id = '0123abcd-4567-4890-8abc-def012345678';
  const env = envelopeOf({ action: 6, event: 'deviceProvisioned', serverID: 1, timestamp: 't', data: {
    device: { id, uuid: id, hwid: 'h' }, peer: { id: 7 }, forwards: [{ id: 3, deviceID: id }, { id: 4, deviceID: 7 }],
  } });
  assert.equal(env.data, { device: { idPrefix: '0123abcd', uuidPrefix: '0123abcd', hwid: 'h' }, peer: { id: 7 }, forwards: [{ id: 3, deviceIDPrefix: '0123abcd' }, { id: 4, deviceID: 7 }] });
});

t('a suspension reaches them as action 7; the peer events are filtered out by subscribedActions', async () => {
  const device = (await f.api.get('/api/devices')).json[0];
  assert.is((await f.api.put(`/api/devices/${device.id}`, { suspended: true })).status, 200);
  const all = await rx.waitFor(2);
  const body = JSON.parse(all[1].body);
  assert.equal([body.action, body.event, body.data.device.uuidPrefix, body.data.device.suspended], [7, 'deviceSuspended', device.uuid.slice(0, 8), true]);
  assert.not.ok(all[1].body.includes(device.uuid), 'the whole device_id is not in the webhook');
  const live = await eventually('the stream event', () => streamed.find((m) => m.event === 'deviceSuspended'));
  assert.not.ok(JSON.stringify(live).includes(device.uuid), 'nor in the stream');
  assert.is(rx.received.length, 2, 'peerCreated and peerUpdated were not sent to this webhook');
});

t.run();
