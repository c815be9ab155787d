// Kernel plane benchmark (issue 3): on one forward server with 100, 1,000 and 10,000 peers,
// the time for one peer create, update and delete to reach the kernel, against a full
// rebuild of the same state (`wg syncconf` of the whole config plus replacing the whole
// table), which is what other managers do on every change.
//   npm run bench:kernel   (root; makes its own network namespace and removes it)
import { execFileSync, spawnSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createLogger } from '../src/log';
import { liveKernel } from '../src/kernel/select';
import { probeKernel } from '../src/kernel/probe';
import { applyBatch } from '../src/nft/apply';
import { fullPolicy } from '../src/nft/policy';
import { renderTable } from '../src/nft/render';
import { ServerModel } from '../src/kernel/model';
import { syncPeers } from '../src/wg/link';
import type { PeerRecord } from '../src/store/peers';
import { fixturePeer, fixtureServer } from '../test/helpers/kernel-fixtures';

const SIZES = (process.env.WGCP_BENCH_SIZES ?? '100,1000,10000').split(',').map(Number);
const CHANGES = Number(process.env.WGCP_BENCH_CHANGES ?? 30);
const REBUILDS = Number(process.env.WGCP_BENCH_REBUILDS ?? 5);

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
function timed(fn: () => void): number {
  const t0 = performance.now();
  fn();
  return performance.now() - t0;
}

interface Row { peers: number; reconcileMs: number; createMs: number; updateMs: number; deleteMs: number; rebuildMs: number }

/** One size: a fresh server with n peers (each may reach the one before it, every other one the internet). */
async function measure(n: number): Promise<Row> {
  const server = fixtureServer(1, { address: '10.1.0.1/16' });
  const peers: PeerRecord[] = [];
  for (let i = 1; i <= n; i++) {
    peers.push(fixturePeer(i, server, i, { allowAccess: i > 1 ? [i - 1] : [], allowInternet: i % 2 === 0 }));
  }
  const forwards = [{ id: 1, serverId: 1, protocol: 'tcp' as const, listenPort: 9000, targetIp: peers[0].ip, targetIp6: peers[0].ip6, targetPort: 80 }];
  const probe = probeKernel();
  if (!probe.ok) throw new Error(`cannot drive the kernel: ${probe.reason}`);
  const plane = liveKernel(createLogger(process.env.WGCP_BENCH_LOG === '1' ? 'debug' : 'error', (l) => process.stderr.write(l)), probe.wireguard);
  const reconcileMs = timed(async () => { await plane.prepare([{ server, peers, forwards }]); await plane.syncServer(server.id, { server, peers, forwards }, { peers: 'all' }); });

  const create: number[] = [];
  const update: number[] = [];
  const del: number[] = [];
  for (let c = 0; c < CHANGES; c++) {
    const fresh = fixturePeer(n + 1 + c, server, n + 1 + c, { allowAccess: [1 + (c % n)], allowInternet: true });
    create.push(timed(() => plane.applyPeer({ server, before: null, after: fresh })));
    const changed = { ...fresh, allowInternet: false, allowAccess: [1 + ((c + 7) % n)] };
    update.push(timed(() => plane.applyPeer({ server, before: fresh, after: changed })));
    del.push(timed(() => plane.applyPeer({ server, before: changed, after: null })));
  }

  // The rebuild carries the same one-peer change each time: the whole config and table again.
  const rebuild: number[] = [];
  for (let r = 0; r < REBUILDS; r++) {
    const extra = fixturePeer(n + 1000 + r, server, n + 1000 + r, { allowAccess: [1], allowInternet: true });
    const all = r % 2 === 0 ? [...peers, extra] : peers;
    rebuild.push(timed(() => {
      syncPeers(server, all);
      applyBatch(renderTable(fullPolicy([new ServerModel(server, all, forwards)])));
    }));
  }
  await plane.close();
  return { peers: n, reconcileMs, createMs: median(create), updateMs: median(update), deleteMs: median(del), rebuildMs: median(rebuild) };
}

function report(rows: Row[]): string {
  const f = (x: number) => x.toFixed(1);
  const base = rows.find((r) => r.peers === 100);
  const lines = [
    '| peers | start-up reconcile (ms) | create (ms) | update (ms) | delete (ms) | full rebuild (ms) | rebuild / change | change vs 100 peers |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of rows) {
    const worst = Math.max(r.createMs, r.updateMs, r.deleteMs);
    const baseWorst = base ? Math.max(base.createMs, base.updateMs, base.deleteMs) : worst;
    lines.push(`| ${r.peers} | ${f(r.reconcileMs)} | ${f(r.createMs)} | ${f(r.updateMs)} | ${f(r.deleteMs)} | ${f(r.rebuildMs)} | ${(r.rebuildMs / worst).toFixed(0)}x | ${(worst / baseWorst).toFixed(2)}x |`);
  }
  return lines.join('\n');
}

async function inside(): Promise<void> {
  const rows: Row[] = [];
  for (const n of SIZES) {
    rows.push(await measure(n));
    process.stderr.write(`measured ${n} peers\n`);
  }
  const tool = (cmd: string, args: string[]) => spawnSync(cmd, args, { encoding: 'utf8' }).stdout.trim().split('\n')[0];
  process.stdout.write([
    `- date: ${new Date().toISOString()}`,
    `- machine: ${os.cpus()[0]?.model ?? 'unknown CPU'} x${os.cpus().length}, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB, Linux ${os.release()}, load average at the end ${os.loadavg()[0].toFixed(1)}`,
    `- tools: node ${process.version}, ${tool('nft', ['--version'])}, ${tool('wg', ['--version']).split(' - ')[0]}, WireGuard: ${probeKernel().ok ? (probeKernel() as { wireguard: string }).wireguard : '?'}`,
    `- ${CHANGES} changes a size (median shown), ${REBUILDS} rebuilds a size (median); a change is one applyPeer from the API's seam to the kernel`,
    '',
    report(rows),
    '',
  ].join('\n'));
}

function outside(): void {
  const ns = `wgcpbench${process.pid}`;
  execFileSync('ip', ['netns', 'add', ns]);
  try {
    // Its own mount namespace too, so wireguard-go's /run/wireguard socket is private to the run.
    const script = 'mkdir -p /run/wireguard && mount -t tmpfs wgcp-bench-run /run/wireguard && exec "$@"';
    const res = spawnSync('ip', ['netns', 'exec', ns, 'unshare', '--mount', '--propagation', 'private', '--', 'sh', '-c', script, 'sh',
      process.execPath, path.join(__dirname, 'kernel-bench.js'), '--inside'], { stdio: 'inherit' });
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
