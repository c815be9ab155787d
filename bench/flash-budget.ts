// The flash budget: bytes the real wgcpd writes (/proc/PID/io write_bytes: WAL, checkpoints,
// everything) with N provisioned devices (each a peer) whose counters all move every minute
// and which all heartbeat every 60 s with jitter. Kernel on (wireguard-go) in a namespace of
// its own; the traffic comes from a `wg` wrapper (flash-fake-wg.ts). Three phases of equal
// length, each scaled to a day: heartbeats alone (counters frozen), usage alone (no
// heartbeats), both; the first two give the split by writer, dbstat gives the tables' sizes.
//   node dist/bench/flash-budget.js     (root)
//   WGCP_BENCH_DEVICES=10000 WGCP_BENCH_PHASE_S=300 WGCP_BENCH_MAIN=<dist>/src/main.js (another build, e.g. the one before)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import Database from 'better-sqlite3';
import { Daemon } from './scale-daemon';
import { machineLines, runInNamespace } from './scale-namespace';
import { freezeTraffic, writeFakeWg } from './flash-fake-wg';
import { HeartbeatFleet } from './soak-devices';

const DEVICES = Number(process.env.WGCP_BENCH_DEVICES ?? 10_000);
const PHASE_S = Number(process.env.WGCP_BENCH_PHASE_S ?? 300);

const writeBytes = (pid: number | 'self'): number => Number(/^write_bytes: (\d+)/m.exec(fs.readFileSync(`/proc/${pid}/io`, 'utf8'))![1]);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const perDayMB = (bytes: number, s: number) => (bytes * 86_400) / s / 1e6;

function tableSizes(dbFile: string): string[] {
  // A read-only look from beside the daemon (WAL mode lets it read while the daemon writes).
  const db = new Database(dbFile, { readonly: true });
  try {
    const rows = db.prepare(`SELECT name, COUNT(*) AS pages, SUM(pgsize) AS bytes FROM dbstat GROUP BY name ORDER BY bytes DESC LIMIT 12`).all() as { name: string; pages: number; bytes: number }[];
    return rows.map((r) => `| ${r.name} | ${r.pages} | ${(r.bytes / 1e6).toFixed(2)} |`);
  } finally {
    db.close();
  }
}

async function inside(): Promise<void> {
  const base = fs.mkdtempSync(path.join('/var/tmp', 'wgcp-flash-'));
  const dataDir = path.join(base, 'data');
  fs.mkdirSync(dataDir);
  const realWg = execFileSync('sh', ['-c', 'command -v wg'], { encoding: 'utf8' }).trim();
  const fakeDir = writeFakeWg(path.join(base, 'bin'), realWg);
  freezeTraffic(fakeDir, true);
  const main = process.env.WGCP_BENCH_MAIN;
  // No device request limit: the set-up enrols 10,000 devices as fast as it can (this bench counts bytes).
  const daemon = new Daemon(dataDir, 18_790, { PATH: `${fakeDir}:${process.env.PATH}`, WGCP_DEVICE_RATE: '0', ...(main ? { WGCP_BENCH_MAIN: main } : {}) });
  await daemon.start();
  try {
    const server = await daemon.client.must('POST', '/api/servers', { name: 'flash', endpoint: 'vpn.example.com:51820', mode: 'forward', address: '10.77.0.1/16', listenPort: 51820 });
    const fleet = new HeartbeatFleet(18_790, daemon.client, server.json.id);
    const t0 = Date.now();
    await fleet.provision(DEVICES, (n) => { if (n % 1000 === 0) console.log(`provisioned ${n} devices (${((Date.now() - t0) / 1000).toFixed(0)} s)`); });
    // A first cycle with the traffic on sets every baseline; the measured phases start after it.
    freezeTraffic(fakeDir, false);
    await sleep(65_000);
    const results: string[] = [];
    // Each phase starts with an empty WAL (the set-up's pages copied out first, uncounted) and
    // ends with a checkpoint counted as its own: the copies the daemon would make later.
    const checkpoint = (): number => {
      const db = new Database(path.join(dataDir, 'wgcp.db'));
      const before = writeBytes('self');
      try { db.pragma('wal_checkpoint(PASSIVE)'); } finally { db.close(); }
      return writeBytes('self') - before;
    };
    const phase = async (name: string, beats: boolean, traffic: boolean) => {
      freezeTraffic(fakeDir, !traffic);
      checkpoint();
      if (beats) fleet.startBeating(60_000);
      const before = writeBytes(daemon.pid);
      await sleep(PHASE_S * 1000);
      if (beats) await fleet.stopBeating();
      // An admin read stores the reports waiting (the daemon flushes before it answers): the
      // phase's reports are written within the phase, not in the next one.
      await daemon.client.must('GET', '/api/devices');
      const wal = writeBytes(daemon.pid) - before;
      const copied = checkpoint();
      const bytes = wal + copied;
      const line = `| ${name} | ${(wal / 1e6).toFixed(1)} | ${(copied / 1e6).toFixed(1)} | ${perDayMB(bytes, PHASE_S).toFixed(0)} |`;
      console.log(line);
      results.push(line);
    };
    // A warm-up of both, not reported: every device's first report (its status, once) and
    // the history's first buckets are behind it.
    await phase('warm-up', true, true);
    results.length = 0;
    await phase('both', true, true);
    await phase('usage alone (no heartbeats)', false, true);
    await phase('heartbeats alone (counters still)', true, false);
    const sizes = tableSizes(path.join(dataDir, 'wgcp.db'));
    console.log([
      '', `flash budget: ${DEVICES} devices (each a peer, all moving traffic), heartbeat every 60 s, phases of ${PHASE_S} s`, ...machineLines(),
      `- heartbeats: ${fleet.beats.count} answered, ${fleet.failures} failed attempts (by status: ${JSON.stringify(Object.fromEntries(fleet.statuses))}); p50 ${fleet.beats.median.toFixed(1)} ms, p99 ${fleet.beats.quantile(0.99).toFixed(1)} ms, max ${fleet.beats.max.toFixed(1)} ms`,
      `- daemon RSS at the end: ${daemon.memory().rssMB.toFixed(1)} MB`,
      '', '| phase | MB written by wgcpd | MB its WAL still held (checkpoint at the end) | MB a day, both |', '|---|---:|---:|---:|', ...results,
      '', '| table or index | pages | MB |', '|---|---:|---:|', ...sizes,
    ].join('\n'));
  } finally {
    await daemon.stop();
    if (!process.env.WGCP_BENCH_KEEP) fs.rmSync(base, { recursive: true, force: true });
  }
}

if (process.argv.includes('--inside')) {
  inside().catch((err) => { console.error(err); process.exit(1); });
} else {
  if (os.userInfo().uid !== 0) { console.error('flash-budget needs root (a network namespace, wireguard-go)'); process.exit(1); }
  runInNamespace(__filename, 'fl');
}
