// One usage-collection cycle for 10,000 peers on one interface: read the `wg show dump`
// text, then the cycle as the scheduler runs it (every delta, usage and baselines in one
// transaction, the traffic history, peers over their limit and back under it), a minute apart
// on the daemon's clock as at the default interval. Real SQLite
// file (WAL, as the daemon opens it), the real parser; the dump is made, not read from wg.
//   node --expose-gc dist/bench/usage-cycle.js [peers] [rounds] [active share, 0..1]   (--expose-gc: the dump text the bench builds is collected before each timed cycle)
// The daemon's V8 settings first: the cycle runs with its small young generation.
import '../src/v8-memory';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { withServices } from '../src/services';
import { loadConfig } from '../src/config';
import { EventBus } from '../src/events/bus';
import { KernelOff } from '../src/kernel/plane';
import { silentLogger } from '../src/log';
import { Store } from '../src/store/store';
import { countersOfDump } from '../src/kernel/peer-counters';
import { generatePresharedKey } from '../src/wg/keys';
import { applyUsage } from '../src/jobs/usage';
import { ChangeRunner } from '../src/ops/runner';
import { longestTurn } from './longest-turn';

const PEERS = Number(process.argv[2] ?? 10_000);
const ROUNDS = Number(process.argv[3] ?? 30);
// Share of peers that move traffic between two cycles: 1 is the worst case (every row written).
const ACTIVE = Number(process.argv[4] ?? 1);
const activeIn = (i: number, round: number) => ((i * 7919) % 1000) / 1000 < ACTIVE || round === 0;

function dumpText(keys: string[], round: number): string {
  const lines = ['PRIVATEKEY\tPUBLICKEY\t51820\toff'];
  keys.forEach((k, i) => {
    // An active peer's counters grow every round; an idle peer's stay where round 0 left them.
    const grown = activeIn(i, round) ? round + 1 : 1;
    const rx = grown * (1000 + i);
    const tx = grown * (500 + i);
    lines.push(`${k}\t(none)\t198.51.100.${i % 250}:${40000 + (i % 20000)}\t10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}/32\t1700000000\t${rx}\t${tx}\t25`);
  });
  return lines.join('\n') + '\n';
}

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wgcp-bench-'));
  const store = Store.open(dir);
  const now = new Date().toISOString();
  const server = store.servers.insert({
    name: 'bench', endpoint: 'vpn.example.com:51820', mode: 'forward', address6: null, interface: 'wgcp1', address: '10.0.0.1/8',
    listenPort: 51820, dns: '10.0.0.1', mtu: null, privateKey: generatePresharedKey(), publicKey: generatePresharedKey(),
    createdAt: now, updatedAt: now,
  });
  const keys: string[] = [];
  store.tx(() => {
    for (let i = 0; i < PEERS; i++) {
      // Random 32-byte keys: the cycle only matches them as text (and mass X25519 generation
      // with JWK export can deadlock Node 20, see bench/README.md).
      const pair = { publicKey: crypto.randomBytes(32).toString('base64'), privateKey: crypto.randomBytes(32).toString('base64') };
      keys.push(pair.publicKey);
      store.peers.insert({
        serverId: server.id, name: `p${i}`, email: '', ip6: null, ip: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${(i & 255) + 2}`,
        publicKey: pair.publicKey, privateKey: pair.privateKey, presharedKey: generatePresharedKey(), allowAccess: [],
        allowInternet: false, enabled: true, disabledReasons: [], dataLimitGB: 100, usageBytes: 0, expiresAt: null,
        createdAt: now, updatedAt: now,
      });
    }
  });
  // The daemon's clock as its scheduler sees it: one cycle a minute (the default interval),
  // so one cycle in five closes a 5-minute history bucket and writes its rows.
  const clock = { now: new Date(Date.UTC(2026, 10, 23, 12, 0, 30)) };
  const kernel = new KernelOff();
  const events = new EventBus(silentLogger);
  const app = withServices({
    config: loadConfig({ WGCP_DATA_DIR: dir }), store, kernel, events, runner: new ChangeRunner(store, kernel, events, silentLogger),
    log: silentLogger, now: () => clock.now,
  }, { salt: 'bench' });
  const times: number[] = [];
  const parseTimes: number[] = [];
  // Cycles that close a 5-minute bucket also write its rows to the history.
  const closingTimes: number[] = [];
  // The closed bucket is written on a later turn of the event loop, apart from the cycle.
  const writeTurns: number[] = [];
  let bucket = -1;
  for (let r = 0; r <= ROUNDS; r++) {
    clock.now = new Date(clock.now.getTime() + app.config.usageIntervalS * 1000);
    // Made before the clock starts, one at a time: the daemon holds one dump, not thirty.
    const dump = dumpText(keys, r);
    // Building 10,000 dump lines is the bench's garbage, not the daemon's (which gets one
    // string from the pipe and has a minute between cycles): with --expose-gc it is
    // collected before the clock starts.
    (globalThis as { gc?: () => void }).gc?.();
    const started = performance.now();
    const counters = countersOfDump(dump);
    const parsed = performance.now();
    // The whole cycle as the scheduler runs it once the counters are read: deltas, baselines,
    // the traffic history, the data limit both ways.
    const { plan } = await applyUsage(app, { counters: new Map([[server.id, counters]]), stale: new Set() });
    const ms = performance.now() - started;
    if (r > 0) parseTimes.push(parsed - started);
    const moving = keys.filter((_k, i) => activeIn(i, r)).length;
    if (plan.traffic.length !== moving) throw new Error(`expected ${moving} peers with traffic, got ${plan.traffic.length}`);
    if (r > 0) times.push(ms); // round 0 writes the first baselines (inserts); the rest are the steady state
    const bucketNow = Math.floor(clock.now.getTime() / 300_000);
    const turn = await longestTurn(app.services.history.settled());
    if (r > 0 && bucket !== -1 && bucketNow !== bucket) { closingTimes.push(ms); writeTurns.push(turn); }
    bucket = bucketNow;
  }
  const expected = keys.reduce((sum, _k, i) => sum + (activeIn(i, ROUNDS) ? ROUNDS + 1 : 1) * (1500 + 2 * i), 0);
  if (store.peers.counts(null).usage !== expected) throw new Error('usage total does not match the counters');
  times.sort((a, b) => a - b);
  parseTimes.sort((a, b) => a - b);
  closingTimes.sort((a, b) => a - b);
  writeTurns.sort((a, b) => a - b);
  const pick = (q: number, of = times) => of[Math.min(of.length - 1, Math.floor(q * of.length))].toFixed(1);
  console.log(JSON.stringify({ bench: 'usage-cycle', peers: PEERS, rounds: ROUNDS, active: ACTIVE, medianMs: pick(0.5), p95Ms: pick(0.95), parseMedianMs: pick(0.5, parseTimes), closingBucket: { cycles: closingTimes.length, medianMs: pick(0.5, closingTimes), maxMs: closingTimes.at(-1)?.toFixed(1), writeTurnMedianMs: pick(0.5, writeTurns), writeTurnMaxMs: writeTurns.at(-1)?.toFixed(1) }, maxMs: times.at(-1)!.toFixed(1), node: process.version, cores: os.cpus().length, load1: os.loadavg()[0].toFixed(2) }));
  store.close();
  fs.rmSync(dir, { recursive: true, force: true });
}

void main();
