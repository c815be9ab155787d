// The reconciler at 10,000 peers (issue 24). Two parts:
//   1. the no-drift cost on the usage cycle: the pure compare of a 10,000-peer dump with the
//      peers wgcp holds (what each cycle adds), no root needed;
//   2. with root, the real wgcpd (WGCP_KERNEL=on, wireguard-go) in a namespace of its own,
//      its database seeded with one forward-mode server of 10,000 peers (one in two with the
//      internet, one in ten naming another): each kind of drift made by hand with the real
//      tools and timed until the kernel holds it again.
//   node --expose-gc dist/bench/reconcile.js [peers] [rounds]      (root: the live part too; WGCP_BENCH_LIVE=0: the compare only)
import '../src/v8-memory';
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { peerDrift, wantedPeers } from '../src/kernel/reconcile-peers';
import { countersOfDump } from '../src/kernel/peer-counters';
import { allowedIpOf } from '../src/wg/uapi-conf';
import { generatePresharedKey } from '../src/wg/keys';
import type { KernelPeer } from '../src/store/peers';
import { Store } from '../src/store/store';
import { Daemon } from './scale-daemon';
import { machineLines, runInNamespace } from './scale-namespace';

const PEERS = Number(process.argv.filter((a) => a !== '--inside')[2] ?? 10_000);
const ROUNDS = Number(process.argv.filter((a) => a !== '--inside')[3] ?? 5);
const inside = process.argv.includes('--inside');
const key = () => crypto.randomBytes(32).toString('base64');
const ip = (i: number) => `10.9.${(i + 2) >> 8}.${(i + 2) & 255}`;

const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))];
const fmt = (ms: number) => ms.toFixed(1);

function compareCost(): void {
  const peers: KernelPeer[] = [];
  for (let i = 0; i < PEERS; i++) peers.push({ id: i + 1, ip: ip(i), ip6: `fd00:9::${(i + 2).toString(16)}`, publicKey: key(), presharedKey: generatePresharedKey(), allowAccess: [], allowInternet: false, enabled: true });
  const dump = ['PRIV\tPUB\t51820\toff', ...peers.map((p, i) => `${p.publicKey}\t${p.presharedKey}\t198.51.100.${i % 250}:${40000 + i}\t${allowedIpOf(p)}\t1700000000\t${1000 + i}\t${500 + i}\toff`)].join('\n') + '\n';
  // The wanted map is kept between cycles while the peers do not change: built once here.
  const wanted = wantedPeers(peers);
  const plain: number[] = [];
  const checked: number[] = [];
  // Alternating, so that load on the machine falls on both alike.
  for (let r = 0; r < 120; r++) {
    (globalThis as { gc?: () => void }).gc?.();
    const check = { wanted, drifted: false, slice: r % 4 };
    const t0 = performance.now();
    countersOfDump(dump, r % 2 === 0 ? check : undefined);
    (r % 2 === 0 ? checked : plain).push(performance.now() - t0);
    if (check.drifted) throw new Error('a dump equal to the peers was seen as drift');
  }
  const full: number[] = [];
  for (let r = 0; r < 20; r++) {
    const t0 = performance.now();
    if (peerDrift(dump, wantedPeers(peers)) !== null) throw new Error('drift');
    full.push(performance.now() - t0);
  }
  const p = (xs: number[]) => `median ${fmt(quantile(xs, 0.5))} ms, p95 ${fmt(quantile(xs, 0.95))} ms`;
  console.log(`${PEERS}-peer dump, the usage cycle's parse: alone ${p(plain)}; with the reconciler's compare in the same pass ${p(checked)}`);
  console.log(`(the full compare a drifted dump gets, wanted map built anew: ${p(full)}; load ${os.loadavg()[0].toFixed(2)})`);
}

function seed(dir: string): { serverIf: string; keys: string[] } {
  const store = Store.open(dir);
  const now = new Date().toISOString();
  const server = store.servers.insert({
    name: 'bench', endpoint: '192.0.2.1:51820', mode: 'forward', address6: null, interface: 'wgcp1', address: '10.9.0.1/16',
    listenPort: 51820, dns: '10.9.0.1', mtu: null, privateKey: key(), publicKey: key(), createdAt: now, updatedAt: now,
  });
  const keys: string[] = [];
  store.tx(() => {
    for (let i = 0; i < PEERS; i++) {
      const publicKey = key();
      keys.push(publicKey);
      const p = store.peers.insert({
        serverId: server.id, name: `p${i}`, email: '', ip6: null, ip: ip(i), publicKey, privateKey: key(), presharedKey: generatePresharedKey(),
        allowAccess: [], allowInternet: i % 2 === 0, enabled: true, disabledReasons: [], dataLimitGB: 100, usageBytes: 0, expiresAt: null, createdAt: now, updatedAt: now,
      });
      if (i % 10 === 9) store.peers.update({ ...p, allowAccess: [p.id - 1] });
    }
  });
  store.close();
  return { serverIf: 'wgcp1', keys };
}

const sh = (cmd: string, args: string[]) => execFileSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, stdio: ['ignore', 'pipe', 'pipe'] });
const ok = (cmd: string, args: string[]) => { try { sh(cmd, args); return true; } catch { return false; } };

async function until(what: string, check: () => boolean, limitMs = 120_000): Promise<number> {
  const t0 = performance.now();
  while (!check()) {
    if (performance.now() - t0 > limitMs) throw new Error(`${what}: not within ${limitMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return performance.now() - t0;
}

async function live(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wgcp-reconcile-bench-'));
  const { serverIf, keys } = seed(dir);
  const intervalS = 10;
  const d = new Daemon(dir, 18080, { WGCP_USAGE_INTERVAL_S: String(intervalS) });
  await d.start();
  console.log(`wgcpd started with ${d.reconciledPeers()} peers in ${fmt(d.startMs)} ms; usage interval ${intervalS} s`);
  const peersHeld = () => sh('wg', ['show', serverIf, 'peers']).split('\n').filter(Boolean).length;
  const hasPeer = (k: string) => sh('wg', ['show', serverIf, 'allowed-ips']).includes(k);
  const element = `{ "${serverIf}" . 10.9.0.1 }`;
  const results: Record<string, number[]> = { peer: [], element: [], flush: [], killed: [] };
  // The event loop's longest delay from one scrape to the next: how long a repair (or the compare before it) held the daemon.
  const lagMs = async () => Number(/^nodejs_eventloop_lag_max_seconds ([\d.e+-]+)$/m.exec((await d.client.request('GET', '/metrics')).text)?.[1] ?? NaN) * 1000;
  const lags: Record<string, number[]> = { peer: [], element: [], flush: [], killed: [] };
  await lagMs();
  for (let r = 0; r < ROUNDS; r++) {
    const k = keys[(r * 997) % keys.length];
    sh('wg', ['set', serverIf, 'peer', k, 'remove']);
    await lagMs();
    results.peer.push(await until('peer back', () => hasPeer(k)));
    lags.peer.push(await lagMs());
    sh('nft', ['delete', 'element', 'inet', 'wgcp', 'server_addrs', element]);
    results.element.push(await until('element back', () => ok('nft', ['get', 'element', 'inet', 'wgcp', 'server_addrs', element])));
    await new Promise((r) => setTimeout(r, 1000));
    lags.element.push(await lagMs());
    sh('nft', ['flush', 'ruleset']);
    results.flush.push(await until('table back', () => ok('nft', ['get', 'element', 'inet', 'wgcp', 'server_addrs', element])));
    // The chains read back after the reload, and the compare a one-shot nft's own change may cause, are in this window too.
    await new Promise((r) => setTimeout(r, 2000));
    lags.flush.push(await lagMs());
    // The daemon's own child only: other namespaces on the machine may run a wgcp1 too.
    const pid = sh('pgrep', ['-P', String(d.pid), '-x', 'wireguard-go']).trim().split('\n')[0];
    process.kill(Number(pid), 'SIGKILL');
    await until('wireguard-go gone', () => !ok('kill', ['-0', pid]));
    results.killed.push(await until('interface and every peer back', () => ok('wg', ['show', serverIf, 'listen-port']) && peersHeld() === PEERS));
    lags.killed.push(await lagMs());
  }
  const metrics = (await d.client.request('GET', '/metrics')).text;
  await d.stop();
  const lines = d.log().split('\n').filter((l) => l.includes('kernel drift repaired'));
  console.log(machineLines().join('\n'));
  console.log(`\n| drift made by hand (${PEERS} peers, ${ROUNDS} rounds) | median s | max s | bound | longest event-loop delay meanwhile, max ms |\n|---|---:|---:|---|---:|`);
  const row = (name: string, kind: string, bound: string) => console.log(`| ${name} | ${(quantile(results[kind], 0.5) / 1000).toFixed(2)} | ${(Math.max(...results[kind]) / 1000).toFixed(2)} | ${bound} | ${fmt(Math.max(...lags[kind]))} |`);
  row('`wg set … remove` of one peer, until it is back', 'peer', `usage interval (${intervalS} s) + 5 s`);
  row('`nft delete element` of one element, until it is back', 'element', '2 s');
  row('`nft flush ruleset`, until inet wgcp is back', 'flush', '5 s');
  row('wireguard-go killed, until the interface holds every peer', 'killed', '10 s');
  console.log(`\nrepair log lines: ${lines.length}; first: ${lines[0] ?? '(none)'}`);
  console.log(metrics.split('\n').filter((l) => l.startsWith('wgcp_kernel_drift')).join('\n'));
  fs.rmSync(dir, { recursive: true, force: true });
}

if (inside) {
  void live().catch((err) => { console.error(err); process.exitCode = 1; });
} else {
  compareCost();
  if (process.getuid?.() === 0 && process.env.WGCP_BENCH_LIVE !== '0') runInNamespace(__filename, 'rcb');
}
