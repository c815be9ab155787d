// Scale as a user meets it (issue 15): the real wgcpd with its kernel backend on, in a
// network namespace of its own with wireguard-go, driven only through its HTTP API. One
// server grows to 100, 1,000 and 10,000 peers (one in five a provisioned device); at each
// size every kind of change and read is timed in rounds, RSS is read after the work and
// again after a restart (start-up with reconcile, a usage cycle, 1,000 heartbeats); then
// steady churn at the largest size shows whether memory grows. bench/scale-full16.ts fills a /16.
//   npx tsc -p . && node dist/bench/scale-e2e.js            (root; makes and removes its namespace)
//   WGCP_BENCH_SIZES=100,1000,10000 WGCP_BENCH_ROUNDS=50 WGCP_BENCH_BEATS=20 WGCP_BENCH_CHURN_S=600
//   WGCP_BENCH_OUT=results.json  WGCP_BENCH_NODE_ARGS=--heapsnapshot-signal=SIGUSR2 WGCP_BENCH_HEAP=1
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Daemon } from './scale-daemon';
import { CHANGES, Fleet, READS } from './scale-fleet';
import { load, measureSize, say, usageCyclesLine } from './scale-measure';
import { machineLines, runInNamespace } from './scale-namespace';
import { churnTable, memoryTable, figureTable, type ChurnSample, type SizeResult } from './scale-report';

const SIZES = (process.env.WGCP_BENCH_SIZES ?? '100,1000,10000').split(',').map(Number);
const ROUNDS = Number(process.env.WGCP_BENCH_ROUNDS ?? 50);
const BEATS = Number(process.env.WGCP_BENCH_BEATS ?? 20);
const CHURN_S = Number(process.env.WGCP_BENCH_CHURN_S ?? 600);

/** Creates, deletes, updates and heartbeats at a steady size; memory sampled every 15 s. */
async function churn(daemon: Daemon, fleet: Fleet, seconds: number): Promise<ChurnSample[]> {
  const samples: ChurnSample[] = [];
  const queue: number[] = [];
  const t0 = Date.now();
  let next = t0;
  for (let i = 1; Date.now() - t0 < seconds * 1000; i++) {
    await fleet.churnStep(queue, 10, i);
    if (Date.now() >= next) {
      samples.push({ s: Math.round((Date.now() - t0) / 1000), steps: i, ...daemon.memory(), load: load() });
      next += 15_000;
    }
  }
  samples.push({ s: Math.round((Date.now() - t0) / 1000), steps: -1, ...daemon.memory(), load: load() });
  return samples;
}

async function inside(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'wgcp-scale-'));
  const daemon = new Daemon(dataDir, 18080, { WGCP_USAGE_INTERVAL_S: process.env.WGCP_BENCH_USAGE_S ?? '60' });
  const results: SizeResult[] = [];
  let churned: ChurnSample[] = [];
  let cycles = '';
  try {
    await daemon.start();
    say(`wgcpd up in ${daemon.startMs.toFixed(0)} ms, pid ${daemon.pid}`);
    const fleet = await Fleet.create(() => daemon.client, 'scale', '10.90.0.1/16', `wgsc${process.pid % 100000}`, 51900);
    for (const n of SIZES) {
      const fill = await fleet.growTo(n, (size) => say(`${size} peers`));
      say(`measuring at ${fleet.size} peers (load ${load().toFixed(2)})`);
      results.push(await measureSize(daemon, fleet, fill, ROUNDS, BEATS));
      say(`done at ${fleet.size} peers: start-up ${daemon.startMs.toFixed(0)} ms, RSS ${results.at(-1)!.afterRestart.rssMB.toFixed(1)} MB`);
    }
    if (CHURN_S > 0) {
      say(`churn for ${CHURN_S} s at ${fleet.size} peers`);
      churned = await churn(daemon, fleet, CHURN_S);
    }
    cycles = await usageCyclesLine(daemon.client).catch((err) => `- usage cycles: ${err instanceof Error ? err.message : String(err)}`);
    if (process.env.WGCP_BENCH_HEAP === '1') {
      daemon.heapSnapshot();
      await new Promise((r) => setTimeout(r, 10_000));
      // Kept beside the bench's working folder: the data folder goes at the end.
      for (const f of fs.readdirSync(dataDir).filter((x) => x.endsWith('.heapsnapshot'))) {
        fs.copyFileSync(path.join(dataDir, f), path.join(process.cwd(), f));
        say(`heap snapshot: ${path.join(process.cwd(), f)} (node dist/bench/heap-summary.js reads it)`);
      }
    }
  } catch (err) {
    say(`wgcpd's last output:\n${daemon.log().slice(-3000)}`);
    throw err;
  } finally {
    await daemon.stop();
  }
  const out = [
    ...machineLines(),
    `- ${ROUNDS} rounds a size, ${BEATS} heartbeats a round; usage interval ${process.env.WGCP_BENCH_USAGE_S ?? '60'} s; milliseconds, median / p95`,
    '',
    figureTable(results, [...CHANGES]),
    '',
    figureTable(results, [...READS]),
    '',
    memoryTable(results),
    '',
    churned.length ? churnTable(churned) : '',
    '',
    cycles,
  ].join('\n');
  process.stdout.write(out + '\n');
  if (process.env.WGCP_BENCH_OUT) {
    const plain = results.map((r) => ({ ...r, fill: r.fill.values, figures: Object.fromEntries(Object.entries(r.figures).map(([k, v]) => [k, v.values])) }));
    fs.writeFileSync(process.env.WGCP_BENCH_OUT, JSON.stringify({ results: plain, churn: churned }, null, 1));
  }
  fs.rmSync(dataDir, { recursive: true, force: true });
}

if (process.argv.includes('--inside')) {
  inside().catch((err) => { process.stderr.write(`${err instanceof Error ? err.stack : err}\n`); process.exit(1); });
} else {
  runInNamespace(__filename, 'scale');
}
