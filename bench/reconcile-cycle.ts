// The usage cycle at 10,000 peers with and without the reconciler's compare in its parse
// (issue 24: with nothing drifted, the cycle's p95 may grow at most 10 %). The cycle as the
// usage-cycle bench runs it (the real parser, the real SQLite file, usage, history and the
// data limit, a minute apart on the daemon's clock), every peer active; the two kinds of
// cycle alternate (ABBA), so that load on a shared machine, and the rounds' own work, fall on both alike.
//   node --expose-gc dist/bench/reconcile-cycle.js [peers] [rounds]
import '../src/v8-memory';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { withServices } from '../src/services';
import { loadConfig } from '../src/config';
import { EventBus } from '../src/events/bus';
import { KernelOff } from '../src/kernel/plane';
import { countersOfDump } from '../src/kernel/peer-counters';
import { wantedOfModel } from '../src/kernel/reconcile-peers';
import { ServerModel } from '../src/kernel/model';
import { applyUsage } from '../src/jobs/usage';
import { silentLogger } from '../src/log';
import { ChangeRunner } from '../src/ops/runner';
import { Store } from '../src/store/store';
import { generatePresharedKey } from '../src/wg/keys';
import { allowedIpOf } from '../src/wg/uapi-conf';

const PEERS = Number(process.argv[2] ?? 10_000);
const ROUNDS = Number(process.argv[3] ?? 40);

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wgcp-bench-'));
  const store = Store.open(dir);
  const now = new Date().toISOString();
  const key = () => crypto.randomBytes(32).toString('base64');
  const server = store.servers.insert({
    name: 'bench', endpoint: 'vpn.example.com:51820', mode: 'forward', address6: null, interface: 'wgcp1', address: '10.0.0.1/8',
    listenPort: 51820, dns: '10.0.0.1', mtu: null, privateKey: key(), publicKey: key(), createdAt: now, updatedAt: now,
  });
  store.tx(() => {
    for (let i = 0; i < PEERS; i++) {
      store.peers.insert({
        serverId: server.id, name: `p${i}`, email: '', ip6: null, ip: `10.${((i + 2) >> 16) & 255}.${((i + 2) >> 8) & 255}.${(i + 2) & 255}`,
        publicKey: key(), privateKey: key(), presharedKey: generatePresharedKey(), allowAccess: [], allowInternet: false, enabled: true,
        disabledReasons: [], dataLimitGB: 100, usageBytes: 0, expiresAt: null, createdAt: now, updatedAt: now,
      });
    }
  });
  const model = new ServerModel(server, store.peers.kernelPeersOf(server.id));
  const peers = [...model.peers.values()];
  // The dump as wg prints it for these peers: their preshared keys, allowed IPs and no keepalive.
  const dumpText = (round: number) => ['PRIV\tPUB\t51820\toff', ...peers.map((p, i) =>
    `${p.publicKey}\t${p.presharedKey}\t198.51.100.${i % 250}:${40000 + (i % 20000)}\t${allowedIpOf(p)}\t1700000000\t${(round + 1) * (1000 + i)}\t${(round + 1) * (500 + i)}\toff`)].join('\n') + '\n';
  const clock = { now: new Date(Date.UTC(2026, 10, 23, 12, 0, 30)) };
  const kernel = new KernelOff();
  const events = new EventBus(silentLogger);
  const app = withServices({ config: loadConfig({ WGCP_DATA_DIR: dir }), store, kernel, events, runner: new ChangeRunner(store, kernel, events, silentLogger), log: silentLogger, now: () => clock.now }, { salt: 'bench' });
  const times: Record<'plain' | 'checked', number[]> = { plain: [], checked: [] };
  for (let r = 0; r <= ROUNDS * 2; r++) {
    clock.now = new Date(clock.now.getTime() + 60_000);
    const dump = dumpText(r);
    (globalThis as { gc?: () => void }).gc?.();
    // ABBA: each kind takes odd and even rounds alike (the cycle's own work differs between them).
    const kind = r % 4 === 0 || r % 4 === 3 ? 'checked' : 'plain';
    const started = performance.now();
    const check = kind === 'checked' ? { wanted: wantedOfModel(model), drifted: false, slice: (r >> 2) % 4 } : undefined;
    const counters = countersOfDump(dump, check);
    await applyUsage(app, { counters: new Map([[server.id, counters]]), stale: new Set() });
    if (r > 1) times[kind].push(performance.now() - started);
    if (check?.drifted) throw new Error('a dump equal to the peers was seen as drift');
  }
  const q = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))].toFixed(1);
  console.log(JSON.stringify({
    bench: 'reconcile-cycle', peers: PEERS, rounds: ROUNDS,
    plain: { medianMs: q(times.plain, 0.5), p95Ms: q(times.plain, 0.95) },
    withCompare: { medianMs: q(times.checked, 0.5), p95Ms: q(times.checked, 0.95) },
    node: process.version, load1: os.loadavg()[0].toFixed(2),
  }));
  store.close();
  fs.rmSync(dir, { recursive: true, force: true });
}

void main();
