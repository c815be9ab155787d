// Changing a peer's networks (issue 37) against any other peer change, at 100 and 10,000
// peers: the real wgcpd (WGCP_KERNEL=on, wireguard-go, the `inet wgcp` table) in a network
// namespace of its own, driven only through its HTTP API on one keep-alive connection. One
// peer in ten has a network behind it, every other one allowInternet, one in ten an
// allowAccess; each round times a peer's allowInternet flipped (any peer change), its networks
// moved to another /24 (a `wg set`, one route removed and one added, its filter elements),
// and its lanAccess and reachableFrom changed (filter elements only).
//   npx tsc -p . && node dist/bench/networks-change.js        (root; makes and removes its namespace)
//   WGCP_BENCH_SIZES=100,10000 WGCP_BENCH_ROUNDS=50
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Daemon } from './scale-daemon';
import { Samples } from './scale-http';
import { say } from './scale-measure';
import { machineLines, runInNamespace } from './scale-namespace';

const SIZES = (process.env.WGCP_BENCH_SIZES ?? '100,10000').split(',').map(Number);
const ROUNDS = Number(process.env.WGCP_BENCH_ROUNDS ?? 50);
const FIGURES = ['allowInternet flipped', 'networks moved', 'lanAccess and reachableFrom changed'] as const;

/** The i-th peer's network: 100.64.0.0/10 holds 16,384 of them. */
const networkOf = (i: number): string => `100.${64 + (i >> 8)}.${i & 255}.0/24`;

async function inside(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wgcp-bench-nets-'));
  const daemon = new Daemon(dir, 18_000 + (process.pid % 1000));
  await daemon.start();
  const c = daemon.client;
  const server = await c.must('POST', '/api/servers', { name: 'bench', endpoint: '192.0.2.1:51820', mode: 'forward', address: '10.60.0.1/16' });
  const sid = server.json.id as number;
  const ids: number[] = [];
  const rows: string[] = [];
  for (const size of SIZES) {
    while (ids.length < size) {
      const i = ids.length;
      const body: Record<string, unknown> = { name: `p${i}`, allowInternet: i % 2 === 0 };
      if (i % 10 === 0) body.networks = [networkOf(i)];
      if (i % 10 === 5 && ids.length > 0) body.allowAccess = [ids[i - 1]];
      ids.push((await c.must('POST', `/api/servers/${sid}/peers`, body)).json.id);
      if (ids.length % 2000 === 0) say(`${ids.length} peers`);
    }
    const figures = new Map(FIGURES.map((f) => [f, new Samples()]));
    for (let r = 0; r < ROUNDS; r++) {
      // A peer with a network, spread over the server's peers; the spare networks lie past the fleet's.
      const i = Math.floor((r * size) / ROUNDS / 10) * 10;
      const id = ids[i];
      figures.get('allowInternet flipped')!.add((await c.must('PUT', `/api/peers/${id}`, { allowInternet: i % 2 !== 0 })).ms);
      await c.must('PUT', `/api/peers/${id}`, { allowInternet: i % 2 === 0 });
      figures.get('networks moved')!.add((await c.must('PUT', `/api/peers/${id}`, { networks: [networkOf(12_000 + r)] })).ms);
      await c.must('PUT', `/api/peers/${id}`, { networks: [networkOf(i)] });
      figures.get('lanAccess and reachableFrom changed')!.add((await c.must('PUT', `/api/peers/${id}`, { lanAccess: 'lan', reachableFrom: ['192.168.1.0/24'] })).ms);
      await c.must('PUT', `/api/peers/${id}`, { lanAccess: [], reachableFrom: [] });
    }
    for (const [name, s] of figures) rows.push(`| ${size.toLocaleString('en')} | ${name} | ${s.median.toFixed(1)} | ${s.p95.toFixed(1)} | ${s.max.toFixed(1)} |`);
    say(`${size} peers measured`);
  }
  await daemon.stop();
  fs.rmSync(dir, { recursive: true, force: true });
  process.stdout.write([...machineLines(), `- rounds: ${ROUNDS} a figure, a size`, '', '| peers | change (PUT /api/peers/{id}) | median ms | p95 ms | max ms |', '|---|---|---|---|---|', ...rows, ''].join('\n'));
}

if (process.argv.includes('--inside')) {
  inside().catch((err) => { console.error(err); process.exit(1); });
} else {
  runInNamespace(__filename, 'nets');
}
