import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import WebSocket from 'ws';
import { call, client, startTestDaemon, type TestDaemon } from './helpers/daemon';
import { countingKernel } from './helpers/counting-kernel';
import { eventually } from './helpers/receiver';
import { createLogger } from '../src/log';

const t = suite('live event stream (GET /api/events)');

let d: TestDaemon;
let api: ReturnType<typeof client>;
let wsUrl: string;
const k = countingKernel();
const logLines: string[] = [];
const open: WebSocket[] = [];

t.before(async () => {
  d = await startTestDaemon({
    env: { WGCP_USAGE_INTERVAL_S: '1' },
    options: { kernel: k.kernel, log: createLogger('debug', (l) => { logLines.push(l); }) },
  });
  api = client(d);
  wsUrl = d.url.replace('http:', 'ws:') + '/api/events';
});
t.after(async () => {
  for (const ws of open) ws.terminate();
  await d.stop();
});

/** Connects and collects every JSON message; resolves once open, rejects with the HTTP status when refused. */
function connect(opts: { headers?: Record<string, string>; protocols?: string[]; url?: string } = {}) {
  const ws = new WebSocket(opts.url ?? wsUrl, opts.protocols ?? [], { headers: opts.headers });
  open.push(ws);
  const messages: any[] = [];
  ws.on('message', (data) => messages.push(JSON.parse(String(data))));
  const ready = new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('unexpected-response', (_req, res) => reject(Object.assign(new Error(`refused ${res.statusCode}`), { status: res.statusCode })));
    ws.once('error', reject);
  });
  return { ws, messages, ready };
}

const refusedWith = async (c: ReturnType<typeof connect>) => {
  try { await c.ready; } catch (err) { return (err as { status?: number }).status; }
  return 101;
};

t('refuses a connection without credentials, with a wrong key, or on another path', async () => {
  assert.is(await refusedWith(connect()), 401);
  assert.is(await refusedWith(connect({ headers: { 'wg-control-key': 'wgk_wrong' } })), 401);
  assert.is(await refusedWith(connect({ protocols: ['wgcp', 'wgt_not-a-token'] })), 401);
  assert.is(await refusedWith(connect({ url: d.url.replace('http:', 'ws:') + '/api/elsewhere', headers: { 'wg-control-key': d.key } })), 404);
});

t('a plain GET is told to upgrade', async () => {
  const r = await call(d.url, 'GET', '/api/events', undefined, { 'wg-control-key': d.key });
  assert.is(r.status, 426);
  assert.is(r.json.code, 'WGCP_WEBSOCKET_REQUIRED');
});

t('streams every event as the webhook envelope, after an initial usage snapshot', async () => {
  const c = connect({ headers: { 'wg-control-key': d.key } });
  await c.ready;
  await eventually('the first snapshot', () => (c.messages.length ? true : undefined));
  assert.is(c.messages[0].event, 'usage');
  const sid = (await api.post('/api/servers', { name: 'live', endpoint: 'vpn.example.com:51820', mode: 'forward' })).json.id;
  const peer = (await api.post(`/api/servers/${sid}/peers`, { name: 'watch' })).json;
  await api.del(`/api/peers/${peer.id}`);
  const events = await eventually('three events', () => {
    const e = c.messages.filter((m) => m.event !== 'usage');
    return e.length >= 3 ? e : undefined;
  });
  assert.equal(events.map((e) => [e.event, e.action]), [['serverChanged', 8], ['peerCreated', 1], ['peerDeleted', 3]]);
  assert.is(events[1].serverID, sid);
  assert.is(events[1].data.peer.name, 'watch');
  assert.ok(Object.keys(events[1]).sort().join() === 'action,data,event,serverID,timestamp');
});

t('accepts an access token offered as a subprotocol and selects "wgcp"', async () => {
  const { secret } = d.daemon.app.store.credentials.create('token', 'browser', new Date().toISOString());
  const c = connect({ protocols: ['wgcp', secret] });
  await c.ready;
  assert.is(c.ws.protocol, 'wgcp');
  const alone = connect({ protocols: [secret] });
  await alone.ready;
  assert.is(alone.ws.protocol, secret, 'a lone token is echoed, as the browser requires a selected protocol');
  const bearer = connect({ headers: { Authorization: `Bearer ${secret}` } });
  await bearer.ready;
});

t('sends usage snapshots after each collection', async () => {
  const sid = (await api.post('/api/servers', { name: 'usage', endpoint: 'vpn.example.com:51821', mode: 'forward' })).json.id;
  const peer = (await api.post(`/api/servers/${sid}/peers`, {})).json;
  const c = connect({ headers: { 'wg-control-key': d.key } });
  await c.ready;
  k.counters.set(peer.publicKey, { rxBytes: 3000, txBytes: 1000, latestHandshake: 1_700_000_000 });
  const row = await eventually('a snapshot with the new usage', () => {
    for (const m of c.messages) {
      if (m.event !== 'usage') continue;
      const p = m.data.peers.find((x: { id: number }) => x.id === peer.id);
      if (p && p.currentDataUsageBytes === 4000) return p;
    }
    return undefined;
  }, 5000);
  assert.is(row.serverID, sid);
  assert.is(row.latestHandshake, 1_700_000_000);
  assert.is(row.enabled, true);
});

t('drops a client that stops reading instead of buffering for it without bound', async () => {
  const slow = connect({ headers: { 'wg-control-key': d.key } });
  const fast = connect({ headers: { 'wg-control-key': d.key } });
  await slow.ready;
  await fast.ready;
  const closed = new Promise<void>((resolve) => slow.ws.once('close', () => resolve()));
  // Stop reading: the kernel buffers fill, then the server's own buffer grows.
  (slow.ws as unknown as { _socket: import('node:net').Socket })._socket.pause();
  const filler = 'x'.repeat(64 * 1024);
  for (let i = 0; i < 400; i++) {
    d.daemon.app.events.announce([{ action: 8, event: 'serverChanged', serverID: 0, timestamp: new Date().toISOString(), data: { filler, i } }]);
    // The fast client reads as it goes (waited for, so a busy machine cannot make it slow too).
    await eventually('the fast client keeps up', () => (fast.messages.filter((m) => m.data?.filler).length >= i - 4 ? true : undefined));
  }
  await eventually('the drop in the log', () => logLines.find((l) => l.includes('event stream client dropped')));
  (slow.ws as unknown as { _socket: import('node:net').Socket })._socket.resume();
  await closed;
  const got = await eventually('the fast client got everything', () => {
    const n = fast.messages.filter((m) => m.data?.filler).length;
    return n === 400 ? n : undefined;
  });
  assert.is(got, 400);
});

t.run();
