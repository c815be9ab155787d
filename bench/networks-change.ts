// Changing a peer's networks (issue 37) against any other peer change, at 100 and 10,000
// peers: the real wgcpd (WGCP_KERNEL=on, wireguard-go, the `inet wgcp` table) in a network
// namespace of its own, timed only through its HTTP API on one keep-alive connection. The
// peers are written into its database before it starts (growing 10,000 through the API
// takes half an hour on a loaded 2-core machine); it brings them all up at start. One
// peer in ten has a network behind it, every other one allowInternet, one in ten an
// allowAccess; each round times a peer's allowInternet flipped (any peer change), its networks
// moved to another /24 (a `wg set`, one route removed and one added, its filter elements),
// and its lanAccess and reachableFrom changed (filter elements only), and a flag of a peer
// with no network flipped. A size `10000x2000` is 10,000 peers of which 2,000 carry their own
// prefix lists: two networks each, allowInternet, lanAccess and reachableFrom prefixes, so the
// filter's interval sets hold thousands of elements (internet_nets 5,000, lan_access and
// reach_from 6,000 each).
//   npx tsc -p . && node dist/bench/networks-change.js        (root; makes and removes its namespace)
//   WGCP_BENCH_SIZES=100,10000,10000x2000 WGCP_BENCH_ROUNDS=50
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import { Daemon } from './scale-daemon';
import { Store } from '../src/store/store';
import { generatePresharedKey } from '../src/wg/keys';
import { Samples } from './scale-http';
import { say } from './scale-measure';
import { machineLines, runInNamespace } from './scale-namespace';

/** `10000` or `10000x2000` (peers, and how many of them carry prefix lists of their own). */
const SIZES = (process.env.WGCP_BENCH_SIZES ?? '100,10000,10000x2000').split(',').map((s) => {
  const [peers, withLists] = s.split('x').map(Number);
  return { peers, withLists: withLists ?? 0, label: s.includes('x') ? `${peers.toLocaleString('en')}, ${withLists.toLocaleString('en')} with prefix lists` : peers.toLocaleString('en') };
});
const ROUNDS = Number(process.env.WGCP_BENCH_ROUNDS ?? 50);
const FIGURES = ['allowInternet flipped', 'networks moved', 'lanAccess and reachableFrom changed', 'allowInternet flipped, a peer without networks'] as const;

/** The i-th peer's network: 100.64.0.0/10 holds 16,384 of them. */
const networkOf = (i: number): string => `100.${64 + (i >> 8)}.${i & 255}.0/24`;

/** A second, smaller network of the i-th peer: /28s from 198.18.0.0. */
const smallNetworkOf = (i: number): string => `198.${18 + (i >> 12)}.${(i >> 4) & 255}.${(i & 15) << 4}/28`;

/** A data folder holding one server with `size` peers, as the API would have made them. */
function seed(size: number, withLists: number): { dir: string; ids: number[] } {
  const listEvery = withLists > 0 ? Math.floor(size / withLists) : 0;
  const hasLists = (i: number): boolean => listEvery > 0 && i % listEvery === 1;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wgcp-bench-nets-'));
  const store = Store.open(dir);
  const now = new Date().toISOString();
  const key = () => crypto.randomBytes(32).toString('base64');
  const server = store.servers.insert({
    name: 'bench', endpoint: '192.0.2.1:51820', mode: 'forward', address6: null, interface: 'wgcp1', address: '10.60.0.1/16',
    listenPort: 51820, dns: 'auto', mtu: null, privateKey: key(), publicKey: key(), createdAt: now, updatedAt: now,
  });
  const ids: number[] = [];
  store.tx(() => {
    for (let i = 0; i < size; i++) {
      const p = store.peers.insert({
        serverId: server.id, name: `p${i}`, email: '', ip6: null, ip: `10.60.${((i + 2) >> 8) & 255}.${(i + 2) & 255}`,
        publicKey: key(), privateKey: key(), presharedKey: generatePresharedKey(), allowAccess: i % 10 === 5 ? [ids[i - 1]] : [], allowInternet: i % 2 === 0 || hasLists(i),
        enabled: true, disabledReasons: [], dataLimitGB: 0, usageBytes: 0, expiresAt: null, createdAt: now, updatedAt: now,
        networks: hasLists(i) ? [networkOf(i), smallNetworkOf(i)] : i % 10 === 0 ? [networkOf(i)] : [],
        // Its own prefix lists: the LAN's hosts it may reach, and a LAN host of its own that may reach it.
        ...(hasLists(i) ? { lanAccess: [`192.168.${i & 255}.0/24`], reachableFrom: [`172.16.${(i >> 8) & 255}.${i & 255}/32`] } : {}),
      });
      ids.push(p.id);
    }
  });
  store.close();
  return { dir, ids };
}

async function inside(): Promise<void> {
  const rows: string[] = [];
  const loopMaxes: string[] = [];
  for (const { peers: size, withLists, label } of SIZES) {
    const { dir, ids } = seed(size, withLists);
    const daemon = new Daemon(dir, 18_000 + (process.pid % 1000));
    await daemon.start();
    say(`${label} peers up in ${(daemon.startMs / 1000).toFixed(1)} s`);
    const c = daemon.client;
    const figures = new Map(FIGURES.map((f) => [f, new Samples()]));
    // The first scrape starts wgcpd's event-loop delay histogram; the last reads its longest delay since.
    await c.must('GET', '/metrics');
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
      const plain = ids[i + 3];
      figures.get('allowInternet flipped, a peer without networks')!.add((await c.must('PUT', `/api/peers/${plain}`, { allowInternet: (i + 3) % 2 !== 0 })).ms);
      await c.must('PUT', `/api/peers/${plain}`, { allowInternet: (i + 3) % 2 === 0 });
    }
    for (const [name, s] of figures) rows.push(`| ${label} | ${name} | ${s.median.toFixed(1)} | ${s.p95.toFixed(1)} | ${s.max.toFixed(1)} |`);
    const loopMax = /^nodejs_eventloop_lag_max_seconds ([\d.e+-]+)$/m.exec((await c.must('GET', '/metrics')).text)?.[1];
    loopMaxes.push(`- ${label}: the event loop's longest delay over the rounds ${loopMax === undefined ? 'not read' : `${(Number(loopMax) * 1000).toFixed(0)} ms`}`);
    say(`${label} peers measured`);
    await daemon.stop();
    // WGCP_BENCH_DAEMON_LOG: a file to keep wgcpd's log tail in (what it did while a change waited).
    if (process.env.WGCP_BENCH_DAEMON_LOG) fs.writeFileSync(process.env.WGCP_BENCH_DAEMON_LOG, daemon.log());
    fs.rmSync(dir, { recursive: true, force: true });
  }
  process.stdout.write([...machineLines(), `- load average: ${os.loadavg().map((l) => l.toFixed(1)).join(', ')}`, `- rounds: ${ROUNDS} a figure, a size`, '',
    '| peers | change (PUT /api/peers/{id}) | median ms | p95 ms | max ms |', '|---|---|---|---|---|', ...rows, '', ...loopMaxes, ''].join('\n'));
}

if (process.argv.includes('--inside')) {
  inside().catch((err) => { console.error(err); process.exit(1); });
} else {
  runInNamespace(__filename, 'nets');
}
