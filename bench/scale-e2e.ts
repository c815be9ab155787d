// Scale as a user meets it (issue 15): the real wgcpd with its kernel backend on, in a
// network namespace of its own with wireguard-go, driven only through its HTTP API. One
// server grows to 100, 1,000 and 10,000 peers (one in five a provisioned device); at each
// size every kind of change and read is timed in rounds, RSS is read after the work and
// again after a restart (start-up with reconcile, a usage cycle, 1,000 heartbeats); then
// steady churn at the largest size shows whether memory grows. `full16` fills a /16 instead.
//   npx tsc -p . && node dist/bench/scale-e2e.js            (root; makes and removes its namespace)
//   WGCP_BENCH_SIZES=100,1000,10000 WGCP_BENCH_ROUNDS=50 WGCP_BENCH_BEATS=20 WGCP_BENCH_CHURN_S=600
//   WGCP_BENCH_OUT=results.json  WGCP_BENCH_NODE_ARGS=--heapsnapshot-signal=SIGUSR2 WGCP_BENCH_HEAP=1
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Daemon } from './scale-daemon';
import { CHANGES, Fleet, READS, emptyFigures, type Figures } from './scale-fleet';
import { Samples } from './scale-http';
import { churnTable, memoryTable, figureTable, type ChurnSample, type SizeResult } from './scale-report';

const SIZES = (process.env.WGCP_BENCH_SIZES ?? '100,1000,10000').split(',').map(Number);
const ROUNDS = Number(process.env.WGCP_BENCH_ROUNDS ?? 50);
const BEATS = Number(process.env.WGCP_BENCH_BEATS ?? 20);
const CHURN_S = Number(process.env.WGCP_BENCH_CHURN_S ?? 600);
const HEARTBEATS = 1000;

const say = (line: string) => process.stderr.write(`[${new Date().toISOString().slice(11, 19)}] ${line}\n`);
const load = () => os.loadavg()[0];

/** Every figure at the fleet's present size, then a restart for start-up and memory. */
async function measureSize(daemon: Daemon, fleet: Fleet, fill: Samples): Promise<SizeResult> {
  const loadBefore = load();
  const figures: Figures = { ...emptyFigures(CHANGES), ...emptyFigures(READS) };
  for (let r = 0; r < ROUNDS; r++) await fleet.changeRound(r, figures, BEATS);
  for (let r = 0; r < ROUNDS; r++) await fleet.readRound(r, figures);
  await fleet.heartbeats(HEARTBEATS, figures['heartbeat, kept answer']);
  const afterWork = daemon.memory();
  await daemon.stop();
  await daemon.start();
  const reconciled = daemon.reconciledPeers();
  if (reconciled !== fleet.size) throw new Error(`start-up reconciled ${reconciled} peers, the fleet has ${fleet.size}`);
  await fleet.heartbeats(HEARTBEATS, new Samples());
  const afterRestart = daemon.memory();
  return { peers: fleet.size, figures, fill, startMs: daemon.startMs, afterWork, afterRestart, loadBefore, loadAfter: load() };
}

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
  try {
    await daemon.start();
    say(`wgcpd up in ${daemon.startMs.toFixed(0)} ms, pid ${daemon.pid}`);
    const fleet = await Fleet.create(() => daemon.client, 'scale', '10.90.0.1/16', `wgsc${process.pid % 100000}`, 51900);
    for (const n of SIZES) {
      const fill = await fleet.growTo(n, (size) => say(`${size} peers`));
      say(`measuring at ${fleet.size} peers (load ${load().toFixed(2)})`);
      results.push(await measureSize(daemon, fleet, fill));
      say(`done at ${fleet.size} peers: start-up ${daemon.startMs.toFixed(0)} ms, RSS ${results.at(-1)!.afterRestart.rssMB.toFixed(1)} MB`);
    }
    if (CHURN_S > 0) {
      say(`churn for ${CHURN_S} s at ${fleet.size} peers`);
      churned = await churn(daemon, fleet, CHURN_S);
    }
    if (process.env.WGCP_BENCH_HEAP === '1') {
      daemon.heapSnapshot();
      await new Promise((r) => setTimeout(r, 10_000));
      say(`heap snapshot: ${fs.readdirSync(dataDir).filter((f) => f.endsWith('.heapsnapshot')).map((f) => path.join(dataDir, f)).join(', ')}`);
    }
  } catch (err) {
    say(`wgcpd's last output:\n${daemon.log().slice(-3000)}`);
    throw err;
  } finally {
    await daemon.stop();
  }
  const tool = (cmd: string, args: string[]) => spawnSync(cmd, args, { encoding: 'utf8' }).stdout.trim().split('\n')[0];
  const out = [
    `- date: ${new Date().toISOString()}`,
    `- machine: ${os.cpus()[0]?.model ?? 'unknown CPU'} x${os.cpus().length}, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB, Linux ${os.release()}`,
    `- tools: node ${process.version}, ${tool('nft', ['--version'])}, ${tool('wg', ['--version']).split(' - ')[0]}, wireguard-go`,
    `- ${ROUNDS} rounds a size, ${BEATS} heartbeats a round; usage interval ${process.env.WGCP_BENCH_USAGE_S ?? '60'} s; milliseconds, median / p95`,
    '',
    figureTable(results, [...CHANGES]),
    '',
    figureTable(results, [...READS]),
    '',
    memoryTable(results),
    '',
    churned.length ? churnTable(churned) : '',
  ].join('\n');
  process.stdout.write(out + '\n');
  if (process.env.WGCP_BENCH_OUT) {
    const plain = results.map((r) => ({ ...r, fill: r.fill.values, figures: Object.fromEntries(Object.entries(r.figures).map(([k, v]) => [k, v.values])) }));
    fs.writeFileSync(process.env.WGCP_BENCH_OUT, JSON.stringify({ results: plain, churn: churned }, null, 1));
  }
  fs.rmSync(dataDir, { recursive: true, force: true });
}

function outside(): void {
  const ns = `wgcpscale${process.pid}`;
  execFileSync('ip', ['netns', 'add', ns]);
  try {
    execFileSync('ip', ['netns', 'exec', ns, 'ip', 'link', 'set', 'lo', 'up']);
    // Its own mount namespace too, so wireguard-go's /run/wireguard socket is private to the run.
    const script = 'mkdir -p /run/wireguard && mount -t tmpfs wgcp-scale-run /run/wireguard && exec "$@"';
    const res = spawnSync('ip', ['netns', 'exec', ns, 'unshare', '--mount', '--propagation', 'private', '--', 'sh', '-c', script, 'sh',
      process.execPath, __filename, '--inside', ...process.argv.slice(2)], { stdio: 'inherit' });
    if (res.status !== 0) process.exitCode = 1;
  } finally {
    for (const pid of spawnSync('ip', ['netns', 'pids', ns], { encoding: 'utf8' }).stdout.split(/\s+/).filter(Boolean)) {
      try { process.kill(Number(pid), 'SIGKILL'); } catch { /* gone */ }
    }
    execFileSync('ip', ['netns', 'del', ns]);
  }
}

if (process.argv.includes('--inside')) {
  inside().catch((err) => { process.stderr.write(`${err instanceof Error ? err.stack : err}\n`); process.exit(1); });
} else {
  outside();
}
