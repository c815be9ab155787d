import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import WebSocket from 'ws';
import { Receiver, eventually } from './helpers/receiver';
import { deviceFixture, pythonDecrypt, type DeviceFixture } from './device-support';

const t = suite('device events: webhooks and the live stream hear provisioned and suspended');
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
  assert.is(body.data.device.id, cfg.device_id);
  assert.not.ok(req.body.includes(cfg.private_key as string), 'no key in the webhook');
  const live = await eventually('the stream event', () => streamed.find((m) => m.event === 'deviceProvisioned'));
  assert.is(live.data.device.id, cfg.device_id);
});

t('a suspension reaches them as action 7; the peer events are filtered out by subscribedActions', async () => {
  const device = (await f.api.get('/api/devices')).json[0];
  assert.is((await f.api.put(`/api/devices/${device.id}`, { suspended: true })).status, 200);
  const all = await rx.waitFor(2);
  const body = JSON.parse(all[1].body);
  assert.equal([body.action, body.event, body.data.device.id, body.data.device.suspended], [7, 'deviceSuspended', device.id, true]);
  await eventually('the stream event', () => streamed.find((m) => m.event === 'deviceSuspended'));
  assert.is(rx.received.length, 2, 'peerCreated and peerUpdated were not sent to this webhook');
});

t.run();
