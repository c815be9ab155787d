// GET /metrics at 10,000 peers against the real wgcpd, run as its own process (kernel backend
// off, a real SQLite file in WAL mode): one server of `peers` peers, each with the interface
// counters a usage cycle leaves (bytes, a handshake for most), some with a data limit, some
// disabled. Measures the first scrape (it loads prom-client) and the daemon's RSS before and
// after it, then `rounds` scrapes in a row, then whether scrapes hold the API up: a probe
// (GET /api/peers/1, one at a time) alone, then while scrapes run back to back beside it.
//   npx tsc -p . && node dist/bench/metrics-scrape.js [peers=10000] [rounds=30] [probe_s=10]
import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Store } from '../src/store/store';
import type { BaselineRow } from '../src/store/usage';

const PEERS = Number(process.argv[2] ?? 10_000);
const ROUNDS = Number(process.argv[3] ?? 30);
const PROBE_S = Number(process.argv[4] ?? 10);
const MAIN = path.join(__dirname, '..', 'src', 'main.js');

interface Wgcpd { child: ChildProcess; base: string; key: string }

async function startWgcpd(dataDir: string): Promise<Wgcpd> {
  const child = spawn(process.execPath, [MAIN], {
    env: { ...process.env, WGCP_DATA_DIR: dataDir, WGCP_LISTEN: '127.0.0.1:0', WGCP_KERNEL: 'off', WGCP_LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => { out += c.toString(); });
  const deadline = Date.now() + 30_000;
  for (;;) {
    const m = /"msg":"wgcpd is listening"[^\n]*"port":(\d+)/.exec(out);
    if (m) return { child, base: `http://127.0.0.1:${m[1]}`, key: fs.readFileSync(path.join(dataDir, 'api-key'), 'utf8').trim() };
    if (child.exitCode !== null || Date.now() > deadline) { child.kill('SIGKILL'); throw new Error(`wgcpd did not start:\n${out}`); }
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function stop(w: Wgcpd): Promise<void> {
  const exited = new Promise((r) => w.child.once('exit', r));
  w.child.kill('SIGTERM');
  await exited;
}

async function get(w: Wgcpd, p: string): Promise<{ ms: number; bytes: number; text: string }> {
  const t0 = performance.now();
  const res = await fetch(w.base + p, { headers: { 'wg-control-key': w.key } });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`GET ${p}: ${res.status} ${text.slice(0, 200)}`);
  return { ms: performance.now() - t0, bytes: Buffer.byteLength(text), text };
}

const rssMB = (pid: number) => Number(/^VmRSS:\s+(\d+) kB$/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))];
const row = (xs: number[]) => `${quantile(xs, 0.5).toFixed(1)} | ${quantile(xs, 0.99).toFixed(1)} | ${Math.max(...xs).toFixed(1)}`;

/** Peers with the counters a usage cycle leaves, straight into the store in one transaction. */
function seed(dataDir: string, serverId: number): void {
  const store = Store.open(dataDir);
  const now = new Date().toISOString();
  const nowS = Math.floor(Date.now() / 1000);
  store.tx(() => {
    const baselines: BaselineRow[] = [];
    for (let i = 0; i < PEERS; i++) {
      const host = i + 2;
      const publicKey = crypto.randomBytes(32).toString('base64');
      const peer = store.peers.insert({
        serverId, name: `peer-${String(i).padStart(5, '0')}`, email: '', ip: `10.200.${host >> 8}.${host & 255}`, ip6: null, publicKey, privateKey: null,
        presharedKey: crypto.randomBytes(32).toString('base64'), allowAccess: [], allowInternet: i % 2 === 0, enabled: i % 20 !== 0,
        disabledReasons: i % 20 === 0 ? ['admin'] : [], dataLimitGB: i % 3 === 0 ? 50 : 0, usageBytes: 0, expiresAt: null, createdAt: now, updatedAt: now,
      } as Parameters<Store['peers']['insert']>[0]);
      // Most peers have shaken hands, a third of them within the online window.
      const handshake = i % 10 === 0 ? 0 : nowS - (i % 3 === 0 ? 30 : 3600);
      baselines.push([peer.id, publicKey, (i * 7919) % 40_000_000_000, (i * 104729) % 4_000_000_000, handshake]);
    }
    store.usage.setBaselines(baselines, now);
  });
  store.close();
}

async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'wgcp-metrics-bench-'));
  try {
    let w = await startWgcpd(dataDir);
    const res = await fetch(`${w.base}/api/servers`, { method: 'POST', headers: { 'wg-control-key': w.key }, body: JSON.stringify({ name: 'bench', endpoint: 'vpn.example.com:51820', mode: 'forward', address: '10.200.0.1/16' }) });
    const serverId = ((await res.json()) as { id: number }).id;
    await stop(w);
    seed(dataDir, serverId);
    w = await startWgcpd(dataDir);
    await get(w, '/api/peers/1');
    await new Promise((r) => setTimeout(r, 1000));
    const rssBefore = rssMB(w.child.pid!);
    const first = await get(w, '/metrics');
    await new Promise((r) => setTimeout(r, 1000));
    const rssAfter = rssMB(w.child.pid!);
    const series = first.text.split('\n').filter((l) => l && !l.startsWith('#')).length;

    const scrapes: number[] = [];
    for (let i = 0; i < ROUNDS; i++) scrapes.push((await get(w, '/metrics')).ms);

    const probe = async (untilMs: number) => {
      const out: number[] = [];
      while (performance.now() < untilMs) out.push((await get(w, '/api/peers/1')).ms);
      return out;
    };
    const alone = await probe(performance.now() + PROBE_S * 1000);
    const during: number[] = [];
    let scraping = true;
    const scraper = (async () => { while (scraping) during.push((await get(w, '/metrics')).ms); })();
    const beside = await probe(performance.now() + PROBE_S * 1000);
    scraping = false;
    await scraper;
    const rssEnd = rssMB(w.child.pid!);
    // V8 gives memory back when a process goes idle: what stays is what the router keeps paying.
    await new Promise((r) => setTimeout(r, 15_000));
    const rssIdle = rssMB(w.child.pid!);
    await stop(w);

    console.log(`GET /metrics, ${PEERS} peers on one server, wgcpd as its own process; ${os.cpus().length} cores, load ${os.loadavg()[0].toFixed(2)}; `
      + `${series.toLocaleString('en')} series, ${(first.bytes / 1e6).toFixed(2)} MB a scrape\n`);
    console.log('| what | p50 ms | p99 ms | max ms |');
    console.log('|---|---|---|---|');
    console.log(`| first scrape (loads prom-client) | ${first.ms.toFixed(1)} | | |`);
    console.log(`| scrape, ${ROUNDS} in a row | ${row(scrapes)} |`);
    console.log(`| scrape, back to back beside the probe (${during.length}) | ${row(during)} |`);
    console.log(`| probe GET /api/peers/1 alone (${alone.length}) | ${row(alone)} |`);
    console.log(`| probe GET /api/peers/1 beside the scrapes (${beside.length}) | ${row(beside)} |`);
    console.log(`\nwgcpd RSS: ${rssBefore.toFixed(1)} MB before the first scrape, ${rssAfter.toFixed(1)} MB a second after it, `
      + `${rssEnd.toFixed(1)} MB right after the back-to-back scrapes, ${rssIdle.toFixed(1)} MB 15 s later`);
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => { console.error(err); process.exit(1); });
