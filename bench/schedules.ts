// Access schedules at 10,000 scheduled peers (issue 25): one boundary that closes (then
// opens) all of them, applied by the scheduler as ONE change of the runner, with the real
// kernel: wgcpd's own code in this process, WGCP_KERNEL=on in a namespace of its own
// (wireguard-go, the `inet wgcp` table). Timed: the whole tick (plan, kernel batch, commit
// with 10,000 events), the kernel batch alone, and a quiet tick (no boundary due).
//   npx tsc -p . && node dist/bench/schedules.js          (root; makes and removes its namespace)
//   WGCP_BENCH_PEERS=10000 WGCP_BENCH_ROUNDS=3
import crypto from 'node:crypto';
import { client, startTestDaemon, tempDir, type TestDaemon } from '../test/helpers/daemon';
import { machineLines, runInNamespace } from './scale-namespace';
import { say } from './scale-measure';
import { KernelLive } from '../src/kernel/live';
import type { PeerChange } from '../src/kernel/plane';
import { startAccessSchedules } from '../src/jobs/access-schedules';
import { run } from '../src/exec/command';

const PEERS = Number(process.env.WGCP_BENCH_PEERS ?? 10_000);
const ROUNDS = Number(process.env.WGCP_BENCH_ROUNDS ?? 3);
const SCHEDULE = { timezone: 'Europe/Berlin', windows: [{ days: ['mon', 'tue', 'wed', 'thu', 'fri'], from: '08:00', to: '18:00' }] };

let kernelMs = 0;
const applyPeers = KernelLive.prototype.applyPeers;
KernelLive.prototype.applyPeers = async function timed(this: KernelLive, changes: PeerChange[]) {
  const t0 = performance.now();
  await applyPeers.call(this, changes);
  kernelMs = performance.now() - t0;
};

async function inside(): Promise<void> {
  // A Monday in January, 17:00 in Berlin: every peer is inside its window.
  const clock = { now: new Date('2026-01-12T16:00:00Z') };
  const dataDir = tempDir('wgcp-bench-sched-');
  const env = { WGCP_KERNEL: 'on' };
  let d: TestDaemon = await startTestDaemon({ dataDir, env, options: { now: () => clock.now, events: { schedule: false } } });
  const api = client(d);
  const server = (await api.post('/api/servers', { name: 'timed', endpoint: '192.0.2.1:51820', mode: 'forward', address: '10.70.0.1/16' })).json;
  const now = clock.now.toISOString();
  const { store } = d.daemon.app;
  // Seeded in the store, then a restart puts them all into the kernel at once.
  store.tx(() => {
    for (let i = 0; i < PEERS; i++) {
      const host = i + 2;
      store.peers.insert({
        serverId: server.id, name: `sch-${i}`, email: i % 10 === 0 ? `u${i}@example.com` : '', ip: `10.70.${host >> 8}.${host & 255}`, ip6: null,
        publicKey: crypto.randomBytes(32).toString('base64'), privateKey: null, presharedKey: crypto.randomBytes(32).toString('base64'),
        allowAccess: [], allowInternet: i % 2 === 0, enabled: true, disabledReasons: [], dataLimitGB: 0, usageBytes: 0, expiresAt: null,
        schedule: SCHEDULE as never, createdAt: now, updatedAt: now,
      });
    }
  });
  await d.stop();
  d = await startTestDaemon({ dataDir, env, options: { now: () => clock.now, events: { schedule: false } } });
  const app = d.daemon.app;
  const onInterface = async () => (await run('wg', ['show', server.interface, 'peers'])).split('\n').filter(Boolean).length;
  say(`${await onInterface()} peers on ${server.interface}`);
  const sched = await startAccessSchedules(app, { clock: () => clock.now, timer: false });
  const rows: string[] = [];
  const quiet: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    for (const [label, at] of [['close (18:00)', 17], ['open (08:00)', 7 + 24]] as const) {
      // A quiet minute first: the tick reads the heap's top and stops.
      clock.now = new Date(Date.UTC(2026, 0, 12 + round, at - 1, 59, 0));
      for (let i = 0; i < 1000; i++) { const t0 = performance.now(); await sched.tick(); quiet.push(performance.now() - t0); }
      clock.now = new Date(Date.UTC(2026, 0, 12 + round, at - 1, 0, 0) + 3_600_000);
      const committed = app.runner.committed;
      const t0 = performance.now();
      const outcome = await sched.tick();
      const tickMs = performance.now() - t0;
      const changed = (outcome?.closed.length ?? 0) + (outcome?.opened.length ?? 0);
      const left = await onInterface();
      rows.push(`| ${round + 1} | ${label} | ${changed} | ${app.runner.committed - committed} | ${tickMs.toFixed(0)} | ${kernelMs.toFixed(0)} | ${left} |`);
      say(rows[rows.length - 1]);
    }
  }
  quiet.sort((a, b) => a - b);
  await sched.stop();
  await d.stop();
  console.log([
    `### Access schedules: ${PEERS.toLocaleString('en')} scheduled peers at one boundary`, '',
    ...machineLines(), '- command: `npx tsc -p . && node dist/bench/schedules.js`', '',
    '| round | boundary | peers changed | runner changes | tick ms (plan + kernel + commit) | kernel batch ms | peers on the interface after |',
    '|---|---|---|---|---|---|---|',
    ...rows, '',
    `A tick with no boundary due (${quiet.length} ticks): median ${(quiet[Math.floor(quiet.length / 2)] * 1000).toFixed(1)} µs, p99 ${(quiet[Math.floor(quiet.length * 0.99)] * 1000).toFixed(1)} µs.`,
  ].join('\n'));
}

if (process.argv.includes('--inside')) {
  inside().then(() => process.exit(0), (err) => { console.error(err); process.exit(1); });
} else {
  runInNamespace(__filename, 'sched');
}
