import crypto from 'node:crypto';
import { recordEvent } from '../src/ops/event-record';
import { suite } from 'uvu';
import { canRun } from './helpers/root';
import * as assert from 'uvu/assert';
import { client, startTestDaemon, tempDir, type TestDaemon } from './helpers/daemon';
import { eventually, Receiver, selfSignedPair, sleep } from './helpers/receiver';
import { fillTemplate, summaryLine } from '../src/events/webhook-render';
import { backoffMs, MAX_ATTEMPTS } from '../src/events/webhooks';
import { WEBHOOK_TIMEOUT_MS } from '../src/events/webhook-send';

const t = suite('webhook delivery');

let d: TestDaemon;
let api: ReturnType<typeof client>;
const receivers: Receiver[] = [];
const receiver = async (opts?: Parameters<typeof Receiver.start>[0]) => { const r = await Receiver.start(opts); receivers.push(r); return r; };

t.before(async () => {
  d = await startTestDaemon({ options: { events: { retryBaseMs: 100, timeoutMs: 400, schedule: false } } });
  api = client(d);
});
t.after(async () => {
  await d.stop();
  for (const r of receivers) await r.close();
});

// Each server its own port (its listenPort follows the endpoint's): random ones met once in a while.
let nextPort = 51000;
async function server(mode: 'forward' | 'standalone') {
  const r = await api.post('/api/servers', { name: mode, endpoint: `vpn.example.com:${nextPort++}`, mode });
  assert.is(r.status, 201, r.text);
  return r.json.id as number;
}

async function hook(sid: number, body: Record<string, unknown>) {
  const r = await api.post(`/api/servers/${sid}/webhooks`, body);
  assert.is(r.status, 201, r.text);
  return r.json.id as number;
}

/**
 * Waits until the outbox holds nothing for these webhooks: every event enqueued for them has
 * been delivered or given up on, so whatever they were going to receive has arrived.
 */
const nothingPendingFor = (...ids: number[]) => eventually(`nothing pending for webhooks ${ids.join(', ')}`,
  () => (ids.every((id) => d.daemon.app.store.outbox.pendingOf(id) === 0) ? true : undefined));

const deliveries = async (id: number) => (await api.get(`/api/webhooks/${id}/deliveries`)).json as { outcome: string; attempt: number; httpStatus: number | null; error: string; deliveryID: number }[];

t('retry and timeout limits are the settled ones', () => {
  assert.is(MAX_ATTEMPTS, 5);
  assert.is(WEBHOOK_TIMEOUT_MS, 5000);
  assert.equal([1, 2, 3, 4].map((n) => backoffMs(n, 2000)), [2000, 4000, 8000, 16000]);
});

t('delivers the default envelope with defaultPayload merged, custom headers and a valid signature', async () => {
  const rx = await receiver();
  const sid = await server('standalone');
  await hook(sid, {
    url: rx.url, secret: 's3cret', defaultPayload: '{"source":"router-1","action":"ignored"}',
    customHeaders: { 'X-Env': 'lab' },
  });
  const peer = (await api.post(`/api/servers/${sid}/peers`, { name: 'phone' })).json;
  const [req] = await rx.waitFor(1);
  const body = JSON.parse(req.body);
  assert.is(body.action, 1);
  assert.is(body.event, 'peerCreated');
  assert.is(body.serverID, sid);
  assert.match(body.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  assert.is(body.data.peer.id, peer.id);
  assert.is(body.data.peer.name, 'phone');
  assert.is(body.source, 'router-1');
  assert.is(req.headers['x-env'], 'lab');
  assert.is(req.headers['content-type'], 'application/json');
  assert.is(req.headers['x-wgcp-event'], 'peerCreated');
  const expected = 'sha256=' + crypto.createHmac('sha256', 's3cret').update(req.body).digest('hex');
  assert.is(req.headers['x-wgcp-signature'], expected);
  assert.not.ok(req.body.includes('privateKey') || req.body.includes('presharedKey'));
});

t('peer created fires for standalone servers only; peer deleted always', async () => {
  const rx = await receiver();
  const sid = await server('forward');
  const id = await hook(sid, { url: rx.url });
  const peer = (await api.post(`/api/servers/${sid}/peers`, {})).json;
  assert.is((await api.del(`/api/peers/${peer.id}`)).status, 204);
  await rx.waitFor(1);
  await nothingPendingFor(id);
  const got = rx.received;
  assert.equal(got.map((r) => JSON.parse(r.body).event), ['peerDeleted']);
  assert.is(JSON.parse(got[0].body).action, 3);
});

t('subscribedActions filter, isGlobal hears every server, a disabled webhook hears nothing', async () => {
  const own = await receiver();
  const global = await receiver();
  const off = await receiver();
  const a = await server('standalone');
  const b = await server('standalone');
  const ids = [await hook(a, { url: own.url, subscribedActions: [3] }), await hook(a, { url: global.url, isGlobal: true, subscribedActions: [1] }),
    await hook(a, { url: off.url, isEnabled: false })];
  const pa = (await api.post(`/api/servers/${a}/peers`, {})).json;
  await api.post(`/api/servers/${b}/peers`, {});
  await api.del(`/api/peers/${pa.id}`);
  await global.waitFor(2);
  await own.waitFor(1);
  await nothingPendingFor(...ids);
  const [g, o] = [global.received, own.received];
  assert.equal(g.map((r) => JSON.parse(r.body).serverID).sort(), [a, b].sort());
  assert.equal(o.map((r) => JSON.parse(r.body).event), ['peerDeleted']);
  assert.is(off.received.length, 0);
});

t('slack, discord and custom templates render their bodies', async () => {
  const slack = await receiver();
  const discord = await receiver();
  const custom = await receiver();
  const sid = await server('standalone');
  await hook(sid, { url: slack.url, template: 'slack' });
  await hook(sid, { url: discord.url, template: 'discord' });
  await hook(sid, {
    url: custom.url, template: 'custom', defaultPayload: '{"site":"lab"}',
    customBody: '{"who":"{{data.peer.name}}","ip":"{{data.peer.ip}}","n":{{action}},"site":"{{site}}","none":"{{data.nope}}"}',
  });
  const peer = (await api.post(`/api/servers/${sid}/peers`, { name: 'Bob "the" \\ phone' })).json;
  assert.is(JSON.parse((await slack.waitFor(1))[0].body).text, `wgcp: peer created: Bob "the" \\ phone (${peer.ip}) on server ${sid}`);
  assert.match(JSON.parse((await discord.waitFor(1))[0].body).content, /^wgcp: peer created: Bob/);
  const body = JSON.parse((await custom.waitFor(1))[0].body);
  assert.equal(body, { who: 'Bob "the" \\ phone', ip: peer.ip, n: 1, site: 'lab', none: '' });
});

t('placeholders: strings escaped, numbers and objects as JSON, missing as nothing', () => {
  const env = { a: { b: 'x"y\n' }, n: 5, o: { k: [1] } };
  assert.is(fillTemplate('"{{a.b}}" {{n}} {{o}} [{{missing.path}}]', env), '"x\\"y\\n" 5 {"k":[1]} []');
  assert.is(summaryLine({ action: 8, event: 'serverChanged', serverID: 2, timestamp: '', data: { server: { name: 'home' } } }), 'wgcp: server changed: home on server 2');
});

t('retries a receiver that answers 500 twice, then delivers, each attempt logged', async () => {
  const rx = await receiver();
  rx.statuses = [500, 500];
  const sid = await server('standalone');
  const id = await hook(sid, { url: rx.url });
  await api.post(`/api/servers/${sid}/peers`, {});
  const got = await rx.waitFor(3);
  assert.is(new Set(got.map((r) => r.headers['x-wgcp-delivery'])).size, 1, 'one delivery id for every attempt');
  const log = await eventually('three attempts in the log', async () => { const l = await deliveries(id); return l.length === 3 ? l : undefined; });
  assert.equal(log.map((l) => [l.attempt, l.outcome, l.httpStatus]), [[1, 'retrying', 500], [2, 'retrying', 500], [3, 'delivered', 200]]);
  assert.match(log[0].error, /500/);
});

t('gives up after five attempts and says so in the log', async () => {
  const rx = await receiver();
  rx.statuses = [503, 503, 503, 503, 503, 503];
  const sid = await server('standalone');
  const id = await hook(sid, { url: rx.url });
  await api.post(`/api/servers/${sid}/peers`, {});
  const log = await eventually('five attempts', async () => { const l = await deliveries(id); return l.length === 5 ? l : undefined; });
  assert.equal(log.map((l) => l.outcome), ['retrying', 'retrying', 'retrying', 'retrying', 'failed']);
  // Given up: the event left the outbox, so no sixth attempt can come.
  await nothingPendingFor(id);
  assert.is(rx.received.length, 5);
});

t('a receiver that does not answer in time counts as a failed attempt', async () => {
  const rx = await receiver();
  rx.hold = true;
  const sid = await server('standalone');
  const id = await hook(sid, { url: rx.url });
  await api.post(`/api/servers/${sid}/peers`, {});
  const log = await eventually('a timed-out attempt', async () => { const l = await deliveries(id); return l.length >= 1 ? l : undefined; });
  assert.is(log[0].outcome, 'retrying');
  assert.match(log[0].error, /timed out after 400 ms/);
  rx.release();
});

t('the API answers while the receiver is still holding the delivery', async () => {
  const rx = await receiver();
  rx.hold = true;
  const sid = await server('standalone');
  const id = await hook(sid, { url: rx.url });
  const created = api.post(`/api/servers/${sid}/peers`, {});
  await rx.waitFor(1);
  assert.is((await created).status, 201);
  assert.equal(await deliveries(id), [], 'no attempt has finished yet');
  // While the attempt is out, the dispatcher sleeps instead of polling the outbox.
  const outbox = d.daemon.app.store.outbox;
  const due = outbox.due.bind(outbox);
  let polls = 0;
  outbox.due = (...args) => { polls++; return due(...args); };
  await sleep(300);
  outbox.due = due;
  assert.ok(polls <= 10, `polled the outbox ${polls} times while waiting`);
  rx.release();
  await eventually('the held delivery logged', async () => ((await deliveries(id)).length === 1 ? true : undefined));
});

t('verifySSL: a self-signed receiver is refused when verifying and reached when not', async () => {
  if (!canRun('self-signed receiver', ['openssl'])) return;
  const rx = await receiver({ tls: selfSignedPair() });
  const sid = await server('standalone');
  const strict = await hook(sid, { url: rx.url, subscribedActions: [1] });
  const lax = await hook(sid, { url: rx.url, verifySSL: false, subscribedActions: [1] });
  await api.post(`/api/servers/${sid}/peers`, {});
  const laxLog = await eventually('lax delivery', async () => { const l = await deliveries(lax); return l.length ? l : undefined; });
  const strictLog = await eventually('strict attempt', async () => { const l = await deliveries(strict); return l.length ? l : undefined; });
  assert.is(laxLog[0].outcome, 'delivered');
  assert.is(strictLog[0].outcome, 'retrying');
  assert.match(strictLog[0].error, /self[- ]signed|certificate/i);
  assert.is(rx.received.length, 1, 'only the lax webhook reached it');
});

t('POST /api/webhooks/{id}/test sends a test event; a failing receiver is a 502', async () => {
  const rx = await receiver();
  const sid = await server('forward');
  const id = await hook(sid, { url: rx.url, subscribedActions: [3] });
  const ok = await api.post(`/api/webhooks/${id}/test`, {});
  assert.is(ok.status, 200, ok.text);
  assert.is(ok.json.delivered, true);
  const body = JSON.parse((await rx.waitFor(1))[0].body);
  assert.is(body.event, 'test');
  assert.is(body.data.webhook.id, id);
  rx.statuses = [500];
  const bad = await api.post(`/api/webhooks/${id}/test`, {});
  assert.is(bad.status, 502);
  assert.match(bad.json.error, /answered 500/);
  assert.equal((await deliveries(id)).map((l) => l.outcome), ['test', 'test']);
  assert.is((await api.post('/api/webhooks/999999/test', {})).status, 404);
  assert.is((await api.get('/api/webhooks/999999/deliveries')).status, 404);
});

t('an item that cannot even be attempted waits and is dropped like a failing one, never spun on', async () => {
  const rx = await receiver();
  const sid = await server('standalone');
  const id = await hook(sid, { url: rx.url, subscribedActions: [1] });
  const outbox = d.daemon.app.store.outbox;
  const poison = outbox.enqueue(id, 'peerUpdated', '{not json', Date.now(), new Date().toISOString());
  const due = outbox.due.bind(outbox);
  let polls = 0;
  outbox.due = (...args) => { polls++; return due(...args); };
  const { app } = d.daemon;
  // A good item beside it, recorded as a change records its events.
  app.events.announce([app.store.tx(() => recordEvent(app.store, new Date(), 'peerCreated', sid, { mode: 'standalone' }))]);
  await eventually('the unreadable item gone', () => (outbox.pendingOf(id) === 0 ? true : undefined), 8000);
  outbox.due = due;
  assert.ok(polls < 40, `polled ${polls} times`);
  assert.equal(rx.received.map((r) => JSON.parse(r.body).event), ['peerCreated'], 'the good item went out');
  assert.ok(poison > 0);
});

t('pending deliveries survive a daemon restart mid-retry', async () => {
  const rx = await receiver();
  rx.statuses = [500];
  const dir = tempDir();
  let d2 = await startTestDaemon({ dataDir: dir, options: { events: { retryBaseMs: 1500, schedule: false } } });
  const api2 = client(d2);
  const sid = (await api2.post('/api/servers', { name: 'r', endpoint: 'vpn.example.com:51820', mode: 'standalone' })).json.id;
  const id = (await api2.post(`/api/servers/${sid}/webhooks`, { url: rx.url })).json.id;
  await api2.post(`/api/servers/${sid}/peers`, {});
  await rx.waitFor(1);
  await eventually('first attempt logged', async () => ((await client(d2).get(`/api/webhooks/${id}/deliveries`)).json.length === 1 ? true : undefined));
  await d2.stop();
  d2 = await startTestDaemon({ dataDir: dir, options: { events: { retryBaseMs: 1500, schedule: false } } });
  const got = await rx.waitFor(2);
  assert.is(got[1].headers['x-wgcp-delivery'], got[0].headers['x-wgcp-delivery']);
  assert.is(got[1].body, got[0].body);
  const log = await eventually('second attempt logged', async () => {
    const l = (await client(d2).get(`/api/webhooks/${id}/deliveries`)).json;
    return l.length === 2 ? l : undefined;
  });
  assert.equal(log.map((l: { outcome: string }) => l.outcome), ['retrying', 'delivered']);
  await d2.stop();
});

t.run();
