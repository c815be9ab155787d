// GET /api/peers/{id}/usage and GET /api/servers/{id}/usage through the real daemon: usage
// cycles fed exact interface counters (a counting kernel) at the times of a test clock, the
// history written by the usage job, and wgcp top reading it from the command line.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { client, startTestDaemon, tempDir, type TestDaemon } from './helpers/daemon';
import { countingKernel } from './helpers/counting-kernel';
import { collectUsage } from '../src/jobs/usage';

const t = suite('traffic history through the API and wgcp top');

const CLI = path.join(__dirname, '../src/cli/main.js');
const MIN = 60_000;
const HOUR = 60 * MIN;
// Three whole hours before the machine's clock: wgcp top (run as a command, on that clock)
// later sees the traffic this suite puts into the last hour.
const T0 = Math.floor(Date.now() / HOUR) * HOUR - 3 * HOUR;
const DAY0 = Math.floor(T0 / (24 * HOUR)) * 24 * HOUR;
const iso = (ms: number) => new Date(ms).toISOString();

let d: TestDaemon;
let api: ReturnType<typeof client>;
let k: ReturnType<typeof countingKernel>;
const clock = { now: new Date(T0) };
let serverId: number;
let peers: { id: number; publicKey: string }[] = [];
const totals = new Map<string, { rxBytes: number; txBytes: number; latestHandshake: number }>();

async function start(dataDir = tempDir()) {
  d = await startTestDaemon({ dataDir, options: { kernel: k.kernel, now: () => clock.now, events: { schedule: false } } });
  api = client(d);
}

/** One usage cycle at `ms`, after each named peer's counters grew by [rx, tx]. */
async function cycle(ms: number, moves: [number, number, number][]): Promise<void> {
  clock.now = new Date(ms);
  for (const [index, rx, tx] of moves) {
    const key = peers[index].publicKey;
    const c = totals.get(key) ?? { rxBytes: 0, txBytes: 0, latestHandshake: 0 };
    totals.set(key, { rxBytes: c.rxBytes + rx, txBytes: c.txBytes + tx, latestHandshake: Math.floor(ms / 1000) });
    k.counters.set(key, totals.get(key)!);
  }
  await collectUsage(d.daemon.app);
  // A closed bucket is written on a later turn of the daemon's event loop: `wgcp top`, in
  // another process, reads the file after that.
  await d.daemon.app.services.history.settled();
}

t.before(async () => {
  k = countingKernel();
  await start();
  serverId = (await api.post('/api/servers', { name: 'home', endpoint: 'vpn.example.com:51820', mode: 'forward' })).json.id;
  for (const name of ['laptop', 'phone', 'tv']) peers.push((await api.post(`/api/servers/${serverId}/peers`, { name })).json);
  // The first sight of a peer counts its whole counter, so everyone starts at zero first.
  for (const p of peers) k.counters.set(p.publicKey, { rxBytes: 0, txBytes: 0, latestHandshake: 0 });
  await cycle(T0, []);
});

t.after(async () => { await d.stop(); });

t('a peer\'s 5-minute points: ISO bucket starts, bytes from the router\'s side, the open bucket included', async () => {
  await cycle(T0 + 60_000, [[0, 1000, 100]]);
  await cycle(T0 + 120_000, [[0, 500, 50]]);
  await cycle(T0 + 300_000, [[0, 7, 3]]);
  const r = await api.get(`/api/peers/${peers[0].id}/usage?step=5m`);
  assert.is(r.status, 200, r.text);
  assert.equal(r.json, { step: '5m', points: [
    { t: iso(T0), rxBytes: 1500, txBytes: 150 },
    { t: iso(T0 + 300_000), rxBytes: 7, txBytes: 3 },
  ] });
});

t('peers that moved nothing have no points, and empty buckets are left out', async () => {
  await cycle(T0 + 20 * 60_000, [[1, 40, 4]]);
  assert.equal((await api.get(`/api/peers/${peers[2].id}/usage?step=5m`)).json, { step: '5m', points: [] });
  const laptop = (await api.get(`/api/peers/${peers[0].id}/usage?step=5m`)).json.points;
  assert.equal(laptop.map((p: { t: string }) => p.t), [iso(T0), iso(T0 + 300_000)], 'nothing for the idle quarter hour');
});

t('1h and 1d sum the buckets; the server sums its peers', async () => {
  assert.equal((await api.get(`/api/peers/${peers[0].id}/usage?step=1h`)).json, { step: '1h', points: [{ t: iso(T0), rxBytes: 1507, txBytes: 153 }] });
  assert.equal((await api.get(`/api/peers/${peers[0].id}/usage?step=1d`)).json, { step: '1d', points: [{ t: iso(DAY0), rxBytes: 1507, txBytes: 153 }] });
  assert.equal((await api.get(`/api/servers/${serverId}/usage?step=1h`)).json, { step: '1h', points: [{ t: iso(T0), rxBytes: 1547, txBytes: 157 }] });
  assert.equal((await api.get(`/api/servers/${serverId}/usage`)).json.step, '1h', '1h when no step is given');
});

t('from and to bound the answer (to is exclusive; from counts from the start of its bucket)', async () => {
  const q = (from: number, to: number) => api.get(`/api/peers/${peers[0].id}/usage?step=5m&from=${encodeURIComponent(iso(from))}&to=${encodeURIComponent(iso(to))}`);
  assert.equal((await q(T0 + 60_000, T0 + 300_000)).json.points, [{ t: iso(T0), rxBytes: 1500, txBytes: 150 }]);
  assert.equal((await q(T0 + 300_000, T0 + 3_600_000)).json.points, [{ t: iso(T0 + 300_000), rxBytes: 7, txBytes: 3 }]);
  const plusOne = `${iso(T0 + HOUR).slice(0, 19)}+01:00`;
  const zoned = await api.get(`/api/peers/${peers[0].id}/usage?step=1h&from=${encodeURIComponent(plusOne)}&to=${encodeURIComponent(iso(T0 + HOUR))}`);
  assert.equal(zoned.json.points, [{ t: iso(T0), rxBytes: 1507, txBytes: 153 }], 'a time with an offset is the same instant');
});

t('bad step, from or to: 400 naming the field; an unknown peer or server: 404', async () => {
  const bad = async (query: string, field: string) => {
    const r = await api.get(`/api/peers/${peers[0].id}/usage?${query}`);
    assert.is(r.status, 400, query);
    assert.is(r.json.field, field, query);
    assert.type(r.json.error, 'string');
  };
  await bad('step=10m', 'step');
  await bad('step=', 'step');
  await bad('from=yesterday', 'from');
  await bad('from=2026-03-02', 'from');
  await bad('to=2026-13-45T00:00:00Z', 'to');
  await bad('from=2026-03-02T12:00:00Z&to=2026-03-02T11:00:00Z', 'from');
  assert.is((await api.get('/api/peers/99999/usage')).status, 404);
  assert.is((await api.get('/api/servers/99999/usage')).status, 404);
  assert.is((await api.get('/api/peers/abc/usage')).status, 404);
  assert.is((await client({ url: d.url, key: 'wrong-key-wrong-key' }).get(`/api/peers/${peers[0].id}/usage`)).status, 401);
});

t('a stop writes the open bucket: after a restart the API still shows it', async () => {
  await cycle(T0 + 31 * 60_000, [[2, 9, 1]]);
  await d.stop();
  await start(d.dataDir);
  assert.equal((await api.get(`/api/peers/${peers[2].id}/usage?step=5m`)).json.points, [{ t: iso(T0 + 30 * 60_000), rxBytes: 9, txBytes: 1 }]);
});

const top = (...args: string[]) => execFileSync(process.execPath, [CLI, '--data-dir', d.dataDir, 'top', ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
const topNames = () => (JSON.parse(top('--json')).peers as { name: string; rxBytes: number; txBytes: number }[]).map((l) => [l.name, l.rxBytes, l.txBytes]);

t('wgcp top lists the busiest peers of the last hour, busiest first, beside the running daemon', async () => {
  const now = Math.floor(Date.now() / (5 * MIN)) * 5 * MIN;
  await cycle(now - 15 * MIN, [[2, 5_000_000, 1_000_000], [1, 40, 4]]);
  await cycle(now - 10 * MIN, [[0, 2000, 500]]);
  await cycle(now - 5 * MIN, []);
  assert.equal(topNames(), [['tv', 5_000_000, 1_000_000], ['laptop', 2000, 500], ['phone', 40, 4]]);
  const text = top().split('\n');
  assert.match(text[0], /^busiest peers \d\d:\d\d-\d\d:\d\d UTC/);
  assert.match(text[1], /^PEER\s+NAME\s+SERVER\s+RECEIVED\s+SENT\s+TOTAL$/);
  assert.match(text[2], new RegExp(`^\\s*${peers[2].id}  tv\\s+home \\(${serverId}\\)\\s+4\\.77 MiB\\s+976\\.6 KiB\\s+5\\.72 MiB$`));
  assert.is(JSON.parse(top('--json', '--limit', '1')).peers.length, 1);
  assert.throws(() => top('--limit', '0'), /--limit/);
});

t('a deleted peer\'s traffic stays in its server\'s sum and in wgcp top; its own route is 404', async () => {
  const before = (await api.get(`/api/servers/${serverId}/usage?step=1d`)).json.points;
  assert.is((await api.del(`/api/peers/${peers[1].id}`)).status, 204);
  assert.is((await api.get(`/api/peers/${peers[1].id}/usage`)).status, 404);
  assert.equal((await api.get(`/api/servers/${serverId}/usage?step=1d`)).json.points, before);
  assert.equal(topNames()[2], ['(deleted)', 40, 4]);
});

t.run();
