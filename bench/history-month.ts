// The traffic history over a simulated month at 10,000 peers, all of them moving traffic in
// every usage cycle (the worst case): the daemon's own recorder and tables on a real SQLite
// file in WAL mode as the daemon opens it, driven by a test clock. Measures what a router's
// flash sees: bytes handed to the kernel by write calls (wchar) and bytes the kernel sent to
// the disk (write_bytes), the file's size, rows and bytes per row by tier, the time the
// cycle itself spends on the history, and the longest single turn of the event loop that
// the work after it (a closed bucket written, the hourly roll-up a bucket at a time) takes.
//   npx tsc -p . && node dist/bench/history-month.js [peers=10000] [days=30] [interval_s=300]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Store } from '../src/store/store';
import { silentLogger } from '../src/log';
import { HistoryRecorder, type PeerTraffic } from '../src/history/recorder';
import { HistoryTable } from '../src/history/table';
import { maxRowsPerSubject, TIERS } from '../src/history/tiers';
import { DB_FILE } from '../src/store/db';
import { longestTurn } from './longest-turn';

const PEERS = Number(process.argv[2] ?? 10_000);
const DAYS = Number(process.argv[3] ?? 30);
const INTERVAL_S = Number(process.argv[4] ?? 300);
const SERVERS = 4;

function io(): { wchar: number; writeBytes: number } {
  const text = fs.readFileSync('/proc/self/io', 'utf8');
  const field = (name: string) => Number(new RegExp(`^${name}: (\\d+)$`, 'm').exec(text)![1]);
  return { wchar: field('wchar'), writeBytes: field('write_bytes') };
}

const mb = (n: number) => `${(n / 1e6).toFixed(1)} MB`;
const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))] ?? 0;

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wgcp-history-bench-'));
  const store = Store.open(dir);
  const table = new HistoryTable(store.db);
  const recorder = new HistoryRecorder(store, table, silentLogger);
  // A Monday 00:00 UTC; traffic per cycle from 1 KB to 50 MB, different for every peer and cycle.
  const start = Date.UTC(2026, 0, 5) / 1000;
  let seed = 12345;
  const rand = () => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648; };
  const traffic: PeerTraffic[] = Array.from({ length: PEERS }, (_, i) => [i + 1, (i % SERVERS) + 1, 0, 0]);

  const before = io();
  const writes: number[] = [];
  const rollups: number[] = [];
  const quiet: number[] = [];
  const writeTurns: number[] = [];
  const rollupTurns: number[] = [];
  let expectedRx = 0;
  const end = start + DAYS * 86_400;
  const t0 = Date.now();
  for (let s = start; s < end; s += INTERVAL_S) {
    for (const row of traffic) {
      row[2] = 1000 + Math.floor(rand() * 50_000_000);
      row[3] = 1000 + Math.floor(rand() * 5_000_000);
      expectedRx += row[2];
    }
    const writesBucket = s % 300 === 0 && s !== start;
    const hour = s % 3600 === 0 && s !== start;
    const c0 = process.hrtime.bigint();
    recorder.record(traffic, new Date(s * 1000));
    const ms = Number(process.hrtime.bigint() - c0) / 1e6;
    (hour ? rollups : writesBucket ? writes : quiet).push(ms);
    const turn = await longestTurn(recorder.settled());
    if (hour) rollupTurns.push(turn);
    else if (writesBucket) writeTurns.push(turn);
  }
  recorder.close();
  // What the daemon's WAL would copy into the file sooner or later.
  store.db.pragma('wal_checkpoint(TRUNCATE)');
  const after = io();
  const elapsed = (Date.now() - t0) / 1000;

  const counts = table.rowCounts();
  const pageSize = store.db.pragma('page_size', { simple: true }) as number;
  const pages = store.db.pragma('page_count', { simple: true }) as number;
  const free = store.db.pragma('freelist_count', { simple: true }) as number;
  const byTable = new Map((store.db.prepare('SELECT name, SUM(pgsize) AS bytes FROM dbstat GROUP BY name').all() as { name: string; bytes: number }[]).map((r) => [r.name, r.bytes]));
  let heldRx = 0;
  for (const tier of TIERS) heldRx += store.db.prepare(`SELECT COALESCE(SUM(rx_bytes), 0) FROM ${tier.table} WHERE subject > 0`).pluck().get() as number;
  store.close();
  const fileBytes = fs.statSync(path.join(dir, DB_FILE)).size;
  fs.rmSync(dir, { recursive: true, force: true });
  if (heldRx !== expectedRx) throw new Error(`history holds ${heldRx} received bytes, the cycles moved ${expectedRx}`);

  const wchar = after.wchar - before.wchar;
  const disk = after.writeBytes - before.writeBytes;
  const subjects = PEERS + SERVERS;
  console.log(`history, ${PEERS} active peers on ${SERVERS} servers, ${DAYS} days, a cycle every ${INTERVAL_S} s; ${os.cpus().length} cores, load ${os.loadavg()[0].toFixed(2)}; ran ${elapsed.toFixed(0)} s\n`);
  console.log('| tier | rows | per subject | bytes in file | bytes per row |');
  console.log('|---|---|---|---|---|');
  TIERS.forEach((tier, i) => {
    const bytes = byTable.get(tier.table) ?? 0;
    console.log(`| ${tier.step} | ${counts[i].toLocaleString('en')} | ${(counts[i] / subjects).toFixed(0)} | ${mb(bytes)} | ${counts[i] ? (bytes / counts[i]).toFixed(1) : '-'} |`);
  });
  console.log(`\nfile: ${mb(fileBytes)} (${pages} pages of ${pageSize} B, ${free} free); every received byte kept: ${heldRx.toLocaleString('en')}`);
  console.log(`written: ${mb(wchar)} by write calls (${mb(wchar / DAYS)} a day), ${mb(disk)} sent to the disk (${mb(disk / DAYS)} a day)`);
  const fmt = (xs: number[]) => `median ${quantile(xs, 0.5).toFixed(1)} ms, p95 ${quantile(xs, 0.95).toFixed(1)} ms, max ${Math.max(...xs).toFixed(1)} ms (${xs.length})`;
  console.log(`cycles that close a bucket: ${fmt(writes)}; then the longest turn writing it: ${fmt(writeTurns)}`);
  console.log(`cycles that also start the roll-up (first of each hour): ${fmt(rollups)}; then the longest turn of bucket and roll-up: ${fmt(rollupTurns)}`);
  if (quiet.length) console.log(`cycles that only add in memory: ${fmt(quiet)}`);
  // The steady state after 400 days, from the bytes per row measured here where a tier has rows.
  const worst = maxRowsPerSubject();
  const perRow = TIERS.map((tier, i) => (counts[i] ? (byTable.get(tier.table) ?? 0) / counts[i] : null));
  const known = perRow.filter((x): x is number => x !== null);
  const fallback = known.reduce((a, b) => a + b, 0) / known.length;
  const perPeer = TIERS.reduce((sum, tier, i) => sum + worst.byTier[tier.step] * (perRow[i] ?? fallback), 0);
  console.log(`worst case, every peer active every 5 minutes for 400 days: ${worst.total} rows and about ${(perPeer / 1024).toFixed(1)} KiB a peer; ${mb(perPeer * subjects)} for ${PEERS} peers`);
}

void main();
