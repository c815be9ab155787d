// GET /metrics against the real daemon: credentials, every wgcp family fed by what really
// happened (usage cycles over exact interface counters, provisioning and heartbeats, kernel
// applies and a refused one, webhook deliveries to a real receiver, requests), no secret in
// the text, the unauthenticated WGCP_METRICS_LISTEN, and promtool's check of a real scrape.
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import { call, client, startTestDaemon, tempDir, type TestDaemon } from './helpers/daemon';
import { spawnDaemon } from './helpers/process';
import { countingKernel } from './helpers/counting-kernel';
import { Receiver, eventually } from './helpers/receiver';
import { suiteNeeding } from './helpers/root';
import { deviceFixture, type DeviceFixture } from './device-support';
import { collectUsage } from '../src/jobs/usage';
import { GB } from '../src/peer-state';
import { SLICE } from '../src/metrics/families';
import type { App } from '../src/app';
import { ConfigError, loadConfig } from '../src/config';

const t = suite('metrics: GET /metrics');

interface Line { name: string; labels: Record<string, string>; value: number }

/** The exposition's sample lines (comments left out), labels unescaped. */
function parse(text: string): Line[] {
  const out: Line[] = [];
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]] = l[2].replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    out.push({ name: m[1], labels, value: Number(m[3]) });
  }
  return out;
}

const pick = (lines: Line[], name: string, want: Record<string, string> = {}) =>
  lines.filter((l) => l.name === name && Object.entries(want).every(([k, v]) => l.labels[k] === v));
const valueOf = (lines: Line[], name: string, want: Record<string, string> = {}): number | undefined => {
  const found = pick(lines, name, want);
  assert.ok(found.length <= 1, `one series of ${name} ${JSON.stringify(want)}`);
  return found[0]?.value;
};

let f: DeviceFixture;
let d: TestDaemon;
let api: ReturnType<typeof client>;
let k: ReturnType<typeof countingKernel>;
let nowMs = Date.parse('2026-11-23T12:00:00Z');
let token: string;
const receivers: Receiver[] = [];
const peers: Record<string, { id: number; publicKey: string; privateKey?: string; presharedKey?: string }> = {};

const scrape = async () => {
  const r = await call(d.url, 'GET', '/metrics', undefined, { authorization: `Bearer ${token}` });
  assert.is(r.status, 200, r.text);
  return { text: r.text, lines: parse(r.text), type: r.headers.get('content-type') };
};

t.before(async () => {
  k = countingKernel();
  f = await deviceFixture({ options: { kernel: k.kernel, now: () => new Date(nowMs), events: { schedule: false } } });
  d = f.d;
  api = f.api;
  for (const [name, body] of Object.entries({ alpha: {}, 'bravo "b"': { dataLimitGB: 3 }, charlie: {} })) {
    const r = await api.post(`/api/servers/${f.serverId}/peers`, { name, ...body });
    assert.is(r.status, 201, r.text);
    peers[name] = r.json;
  }
});

t.after(async () => {
  await d.stop();
  for (const r of receivers) await r.close();
});

t('prom-client is loaded by the first scrape, not before', async () => {
  const loaded = () => Object.keys(require.cache).some((file) => file.includes('/node_modules/prom-client/'));
  assert.is(loaded(), false, 'not at start');
  token = (await api.post('/api/access-tokens', { name: 'prometheus' })).json.token;
  await scrape();
  assert.is(loaded(), true);
});

t('wants the API\'s credentials: an access token as Bearer or an API key; none is 401', async () => {
  assert.is((await call(d.url, 'GET', '/metrics')).status, 401);
  assert.is((await call(d.url, 'GET', '/metrics', undefined, { authorization: 'Bearer not-a-token' })).status, 401);
  assert.is((await api.get('/metrics')).status, 200);
  const s = await scrape();
  assert.is(s.type, 'text/plain; version=0.0.4; charset=utf-8');
});

t('peer bytes are the interface counters the usage job read, by server, peer and name, 0 before the first read; a handshake is a Unix time, absent when never', async () => {
  const alpha = peers.alpha;
  k.counters.set(alpha.publicKey, { rxBytes: 123_456, txBytes: 7_890, latestHandshake: nowMs / 1000 - 30 });
  k.counters.set(peers.charlie.publicKey, { rxBytes: 0, txBytes: 0, latestHandshake: 0 });
  await collectUsage(d.daemon.app);
  const { lines } = await scrape();
  const who = { server: String(f.serverId), peer: String(alpha.id), name: 'alpha' };
  assert.is(valueOf(lines, 'wgcp_peer_receive_bytes_total', who), 123_456);
  assert.is(valueOf(lines, 'wgcp_peer_transmit_bytes_total', who), 7_890);
  assert.is(valueOf(lines, 'wgcp_peer_latest_handshake_timestamp_seconds', who), nowMs / 1000 - 30);
  const charlie = { peer: String(peers.charlie.id) };
  assert.is(valueOf(lines, 'wgcp_peer_receive_bytes_total', charlie), 0, 'read, no traffic yet');
  assert.is(valueOf(lines, 'wgcp_peer_latest_handshake_timestamp_seconds', charlie), undefined, 'never shook hands: absent, not 0');
  const bravo = { peer: String(peers['bravo "b"'].id) };
  assert.is(valueOf(lines, 'wgcp_peer_receive_bytes_total', bravo), 0, 'never read: 0, the series exists with the peer');
  assert.is(valueOf(lines, 'wgcp_peer_transmit_bytes_total', bravo), 0);
  assert.is(pick(lines, 'wgcp_peer_enabled', bravo)[0].labels.name, 'bravo "b"', 'a name with a quote comes back whole');
});

t('the kernel backend\'s state (off here: 0) and a failed flag for every server (0: none failed)', async () => {
  const { lines } = await scrape();
  assert.is(valueOf(lines, 'wgcp_kernel_backend_on'), 0);
  assert.equal(pick(lines, 'wgcp_server_failed').map((l) => [l.labels.server, l.value]), [[String(f.serverId), 0]]);
});

t('a freshly started wgcpd\'s first scrape: the event loop figures are measured, and no value is NaN or the empty minimum', async () => {
  const dataDir = tempDir('wgcp-metrics-first-');
  const fresh = await spawnDaemon({ WGCP_DATA_DIR: dataDir, WGCP_KERNEL: 'off' });
  try {
    const key = fs.readFileSync(path.join(dataDir, 'api-key'), 'utf8').trim();
    const r = await call(fresh.url, 'GET', '/metrics', undefined, { 'wg-control-key': key });
    assert.is(r.status, 200);
    const lines = parse(r.text);
    assert.ok(lines.length > 50);
    for (const l of lines) assert.ok(Number.isFinite(l.value), `${l.name} ${JSON.stringify(l.labels)} = ${l.value}`);
    for (const stat of ['min', 'max', 'mean', 'stddev', 'p50', 'p90', 'p99']) {
      const v = valueOf(lines, `nodejs_eventloop_lag_${stat}_seconds`);
      assert.ok(v !== undefined && v >= 0 && v < 1, `nodejs_eventloop_lag_${stat}_seconds = ${v}`);
    }
    assert.is(valueOf(lines, 'wgcp_kernel_backend_on'), 0);
  } finally {
    fresh.child.kill('SIGTERM');
    await fresh.exited;
  }
});

t('enabled and data limit per peer; peers counted by server and state', async () => {
  assert.is((await api.put(`/api/peers/${peers.charlie.id}`, { enabled: false })).status, 200);
  const { lines } = await scrape();
  assert.is(valueOf(lines, 'wgcp_peer_enabled', { peer: String(peers.alpha.id) }), 1);
  assert.is(valueOf(lines, 'wgcp_peer_enabled', { peer: String(peers.charlie.id) }), 0);
  assert.is(valueOf(lines, 'wgcp_peer_data_limit_bytes', { peer: String(peers['bravo "b"'].id) }), 3 * GB);
  assert.is(valueOf(lines, 'wgcp_peer_data_limit_bytes', { peer: String(peers.alpha.id) }), undefined, 'no limit: absent');
  const server = String(f.serverId);
  assert.is(valueOf(lines, 'wgcp_peers', { server, state: 'online' }), 1);
  assert.is(valueOf(lines, 'wgcp_peers', { server, state: 'offline' }), 1);
  assert.is(valueOf(lines, 'wgcp_peers', { server, state: 'disabled' }), 1);
  // Four minutes on, alpha's handshake is older than the online window.
  nowMs += 4 * 60_000;
  const later = (await scrape()).lines;
  assert.is(valueOf(later, 'wgcp_peers', { server, state: 'online' }), 0);
  assert.is(valueOf(later, 'wgcp_peers', { server, state: 'offline' }), 2);
});

t('devices by status; heartbeats and provisions by result', async () => {
  assert.is((await f.provision(await f.newToken(), 'metrics-hw-1')).status, 200);
  assert.is((await f.provision('00000000-0000-4000-8000-000000000000', 'metrics-hw-2')).status, 403);
  assert.is((await f.provision('not-a-token', 'metrics-hw-3')).status, 400);
  const device = (await api.get('/api/devices')).json.find((x: { hwid: string }) => x.hwid === 'metrics-hw-1');
  assert.is((await f.heartbeat({ device_id: device.uuid, status: 'connected' })).status, 200);
  assert.is((await f.heartbeat({ device_id: device.uuid, status: 'connected' })).status, 200);
  assert.is((await f.heartbeat({ device_id: 'nope' })).status, 400);
  assert.is((await f.heartbeat({ device_id: '11111111-1111-4111-8111-111111111111' })).status, 404);
  // The heartbeat writer stores reports on its timer; this is what that timer does.
  d.daemon.app.services.device.heartbeats.flush();
  const { lines, text } = await scrape();
  assert.is(valueOf(lines, 'wgcp_devices', { status: 'connected' }), 1);
  assert.is(valueOf(lines, 'wgcp_device_provisions_total', { result: 'provisioned' }), 1);
  assert.is(valueOf(lines, 'wgcp_device_provisions_total', { result: 'rejected' }), 2);
  assert.is(valueOf(lines, 'wgcp_device_provisions_total', { result: 'error' }), 0);
  assert.is(valueOf(lines, 'wgcp_device_heartbeats_total', { result: 'ok' }), 2);
  assert.is(valueOf(lines, 'wgcp_device_heartbeats_total', { result: 'rejected' }), 2);
  assert.not.ok(text.includes(device.uuid), 'no device id anywhere');
  assert.is((await api.put(`/api/devices/${device.id}`, { suspended: true })).status, 200);
  assert.is(valueOf((await scrape()).lines, 'wgcp_devices', { status: 'suspended' }), 1);
});

t('kernel applies are timed by kind; a refused apply counts as a failure', async () => {
  const before = (await scrape()).lines;
  const count = (lines: Line[], kind: string) => valueOf(lines, 'wgcp_kernel_apply_duration_seconds_count', { kind }) ?? 0;
  assert.is(count(before, 'reconcile'), 1, 'the start-up reconcile');
  assert.is((await api.put(`/api/peers/${peers.alpha.id}`, { name: 'alpha' })).status, 200);
  const apply = k.kernel.applyPeer;
  k.kernel.applyPeer = () => { throw new Error('refused by the test'); };
  try {
    assert.is((await api.put(`/api/peers/${peers.alpha.id}`, { allowInternet: true })).status, 500);
  } finally {
    k.kernel.applyPeer = apply;
  }
  const after = (await scrape()).lines;
  assert.is(count(after, 'peer') - count(before, 'peer'), 2);
  assert.is(valueOf(after, 'wgcp_kernel_apply_failures_total', { kind: 'peer' }), 1);
  assert.is(valueOf(after, 'wgcp_kernel_apply_failures_total', { kind: 'server' }), 0);
  const inf = valueOf(after, 'wgcp_kernel_apply_duration_seconds_bucket', { kind: 'peer', le: '+Inf' });
  assert.is(inf, count(after, 'peer'), 'the +Inf bucket holds every observation');
});

t('webhook deliveries by result, and the outbox length', async () => {
  const ok = await Receiver.start();
  const failing = await Receiver.start();
  receivers.push(ok, failing);
  failing.statuses = [500, 500, 500, 500, 500];
  const hook = (await api.post(`/api/servers/${f.serverId}/webhooks`, { url: ok.url })).json.id;
  assert.is((await api.post(`/api/webhooks/${hook}/test`, {})).status, 200);
  await api.post(`/api/servers/${f.serverId}/webhooks`, { url: failing.url });
  assert.is((await api.put(`/api/peers/${peers.alpha.id}`, { name: 'alpha-2' })).status, 200);
  await ok.waitFor(2);
  await failing.waitFor(1);
  // Each attempt is logged just after its answer: wait until both are in.
  const lines = await eventually('both deliveries logged', async () => {
    const { lines } = await scrape();
    const counted = ['delivered', 'retrying'].every((result) => valueOf(lines, 'wgcp_webhook_deliveries_total', { result }) !== undefined);
    return counted ? lines : undefined;
  });
  assert.is(valueOf(lines, 'wgcp_webhook_deliveries_total', { result: 'test' }), 1);
  assert.is(valueOf(lines, 'wgcp_webhook_deliveries_total', { result: 'delivered' }), 1);
  assert.is(valueOf(lines, 'wgcp_webhook_deliveries_total', { result: 'retrying' }), 1);
  assert.is(valueOf(lines, 'wgcp_outbox_pending'), 1, 'the failed delivery waits for its retry');
});

t('HTTP requests by listener, method, route pattern and status class; a usage cycle is timed', async () => {
  const regToken = await f.newToken();
  assert.is((await api.del(`/api/tokens/${regToken}`)).status, 204);
  assert.is((await api.get('/api/no-such-thing')).status, 404);
  const { lines, text } = await scrape();
  assert.ok((valueOf(lines, 'wgcp_http_requests_total', { listener: 'api', method: 'DELETE', route: '/api/tokens/:token', status_class: '2xx' }) ?? 0) >= 1);
  assert.ok((valueOf(lines, 'wgcp_http_requests_total', { method: 'POST', route: '/api/v1/heartbeat', status_class: '4xx' }) ?? 0) >= 2);
  assert.ok((valueOf(lines, 'wgcp_http_requests_total', { method: 'GET', route: 'unmatched', status_class: '4xx' }) ?? 0) >= 1);
  assert.ok((valueOf(lines, 'wgcp_http_requests_total', { method: 'GET', route: '/metrics', status_class: '4xx' }) ?? 0) >= 2, 'the refused scrapes');
  assert.not.ok(text.includes(regToken), 'the raw path never shows');
  assert.ok((valueOf(lines, 'wgcp_usage_cycle_duration_seconds_count') ?? 0) >= 1);
  assert.ok(pick(lines, 'process_resident_memory_bytes').length === 1, 'prom-client\'s process metrics are there');
});

t('no secret anywhere in the text: keys, tokens, the API key', async () => {
  const { text } = await scrape();
  const conf = (await api.get(`/api/peers/${peers.alpha.id}/config`)).text;
  const line = (key: string) => new RegExp(`^${key} = (.+)$`, 'm').exec(conf)?.[1];
  for (const secret of [line('PrivateKey'), line('PresharedKey'), peers.alpha.publicKey, token, d.key]) {
    assert.type(secret, 'string');
    assert.not.ok(text.includes(String(secret)), 'a secret in the scrape');
  }
});

t.run();

const apart = suite('metrics: WGCP_METRICS_LISTEN');
let m: TestDaemon;
apart.before(async () => { m = await startTestDaemon({ env: { WGCP_METRICS_LISTEN: '127.0.0.1:0' } }); });
apart.after(async () => { await m.stop(); });

apart('serves /metrics without credentials on its own address, and nothing else there', async () => {
  const port = m.daemon.metricsPort;
  assert.type(port, 'number');
  const base = `http://127.0.0.1:${port}`;
  const r = await call(base, 'GET', '/metrics');
  assert.is(r.status, 200);
  assert.ok(parse(r.text).some((l) => l.name === 'wgcp_outbox_pending'));
  assert.is((await call(base, 'GET', '/api/servers', undefined, { 'wg-control-key': m.key })).status, 404, 'no API there');
  assert.is((await call(base, 'GET', '/healthz')).status, 404);
  assert.is((await call(m.url, 'GET', '/metrics')).status, 401, 'WGCP_LISTEN still wants credentials');
  const again = parse((await call(base, 'GET', '/metrics')).text);
  assert.is(valueOf(again, 'wgcp_http_requests_total', { listener: 'metrics', route: '/metrics', status_class: '2xx' }), 1);
});

apart('a bad WGCP_METRICS_LISTEN stops the start with a message naming it', () => {
  for (const value of ['9586', 'host:port', '1.2.3.4:99999']) {
    assert.throws(() => loadConfig({ WGCP_METRICS_LISTEN: value }), (e: Error) => e instanceof ConfigError && e.message.includes('WGCP_METRICS_LISTEN'), value);
  }
  assert.equal(loadConfig({ WGCP_METRICS_LISTEN: ':9586' }).metricsListen, { host: '0.0.0.0', port: 9586 });
  assert.is(loadConfig({}).metricsListen, null);
});

apart('a scrape that arrives during another shares its answer', async () => {
  const base = `http://127.0.0.1:${m.daemon.metricsPort}`;
  const [a, b] = await Promise.all([call(base, 'GET', '/metrics'), call(base, 'GET', '/metrics')]);
  assert.is(a.status, 200);
  assert.is(a.text, b.text);
});

apart.run();

/** Peers straight into the store, in one transaction (the API would take a while for thousands). */
function seedPeers(app: App, serverId: number, count: number): void {
  const now = new Date().toISOString();
  app.store.tx(() => {
    for (let i = 0; i < count; i++) {
      const host = i + 10;
      app.store.peers.insert({
        serverId, name: `seeded-${i}`, email: '', ip: `10.50.${host >> 8}.${host & 255}`, ip6: null, publicKey: crypto.randomBytes(32).toString('base64'),
        privateKey: null, presharedKey: crypto.randomBytes(32).toString('base64'), allowAccess: [], allowInternet: false, enabled: true,
        disabledReasons: [], dataLimitGB: i % 2, usageBytes: 0, expiresAt: null, createdAt: now, updatedAt: now,
      } as Parameters<App['store']['peers']['insert']>[0]);
    }
  });
}

const lint = suiteNeeding('metrics: promtool check metrics', ['promtool']);
let l: TestDaemon;
lint.before(async () => { l = await startTestDaemon(); });
lint.after(async () => { await l.stop(); });

lint('a real scrape passes promtool check metrics (format and naming), families longer than a slice too', async () => {
  const api2 = client(l);
  const sid = (await api2.post('/api/servers', { name: 'lint', endpoint: 'vpn.example.com:51820', mode: 'forward', address: '10.50.0.1/16' })).json.id;
  const odd = (await api2.post(`/api/servers/${sid}/peers`, { name: 'name with "quotes" and a \\', dataLimitGB: 1 })).json.id;
  // The API refuses a line break in a name now; a database from before may still hold one.
  l.daemon.app.store.db.prepare('UPDATE peers SET name = ? WHERE id = ?').run('name with "quotes", a \\ and\na line break', odd);
  // Enough peers that the per-peer families are rendered in several slices.
  seedPeers(l.daemon.app, sid, 2 * SLICE + 500);
  await api2.get('/api/servers');
  const text = (await api2.get('/metrics')).text;
  const peerCount = 2 * SLICE + 501;
  assert.is(text.split('\n').filter((x) => x.startsWith('# TYPE wgcp_peer_enabled ')).length, 1, 'one header');
  const enabled = parse(text).filter((x) => x.name === 'wgcp_peer_enabled');
  assert.is(enabled.length, peerCount);
  assert.is(new Set(enabled.map((x) => x.labels.peer)).size, peerCount, 'every peer once');
  // promtool prints the problems it finds and exits non-zero on any.
  const out = execFileSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] });
  assert.is(out.trim(), '');
  // And it does fail on what breaks the rules, so its silence above means something.
  assert.throws(() => execFileSync('promtool', ['check', 'metrics'], { input: '# TYPE wgcp_x_total gauge\nwgcp_x_total 1\n', stdio: 'pipe' }));
});

lint.run();
