// Bandwidth limits measured as issue 25 states them: iperf3 (TCP, 10 s, -O 3) through the
// tunnel of wgcpd on wireguard-go, in namespaces; each row the receiver's rate against the
// limit. The unlimited peer runs alone before any limit exists (its baseline) and alone
// again once two peers beside it are limited (HTB on the tunnel, its packets go direct).
//   npx tsc -p . && node dist/bench/shaping-iperf.js        (root)
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Netns } from '../test/helpers/netns';
import { startNsDaemon, type NsDaemon } from '../test/helpers/ns-daemon';
import { WgClient } from '../test/helpers/wg-client';
import { machineLines } from './scale-namespace';

const runAsync = promisify(execFile);
const ENDPOINT_IP = '192.0.2.1';
const SECONDS = Number(process.env.WGCP_BENCH_SECONDS ?? 10);
const PORTS: Record<string, number> = { a: 5401, b: 5402, c: 5403 };

interface World { router: Netns; d: NsDaemon; v4: string; v6: string; ids: Record<string, number>; clients: Record<string, WgClient> }
const w = { ids: {}, clients: {} } as World;

async function iperf(name: string, family: 4 | 6, down: boolean): Promise<number> {
  const args = ['netns', 'exec', w.clients[name].ns.name, 'iperf3', '-c', family === 4 ? w.v4 : w.v6, '-p', String(PORTS[name]), '-t', String(SECONDS), '-O', '3', '-J', ...(down ? ['-R'] : [])];
  const { stdout } = await runAsync('ip', args, { maxBuffer: 16 << 20 });
  return (JSON.parse(stdout) as { end: { sum_received: { bits_per_second: number } } }).end.sum_received.bits_per_second / 1e6;
}

async function limit(name: string, down: number | null, up: number | null): Promise<void> {
  const r = await w.d.api('PUT', `/api/peers/${w.ids[name]}`, { downloadLimitMbps: down, uploadLimitMbps: up });
  if (r.status !== 200) throw new Error(r.text);
}

const row = (what: string, got: number, lim: number | null) =>
  `| ${what} | ${lim ?? 'none'} | ${got.toFixed(2)} | ${lim === null ? '' : `${((got / lim - 1) * 100).toFixed(1)}%`} |`;

async function main(): Promise<void> {
  w.router = new Netns('shbench');
  const lines = ['| run | limit (Mbit/s) | measured (Mbit/s) | off the limit |', '|---|---:|---:|---:|'];
  try {
    w.router.exec('ip', ['address', 'add', `${ENDPOINT_IP}/32`, 'dev', 'lo']);
    w.d = await startNsDaemon(w.router);
    const s = await w.d.api('POST', '/api/servers', { name: 'bench', endpoint: `${ENDPOINT_IP}:51820`, mode: 'forward', address: '10.93.0.1/24' });
    w.v4 = '10.93.0.1';
    w.v6 = s.json.address6.replace(/\/\d+$/, '');
    for (const [i, name] of ['a', 'b', 'c'].entries()) {
      const p = await w.d.api('POST', `/api/servers/${s.json.id}/peers`, { name });
      w.ids[name] = p.json.id;
      w.clients[name] = new WgClient(`shb${name}`, w.router, 70 + i, ENDPOINT_IP);
      await w.clients[name].up((await w.d.api('GET', `/api/peers/${p.json.id}/config`)).text, [`${w.v4}/32`, `${w.v6}/128`]);
      w.router.spawn('iperf3', ['-s', '-p', String(PORTS[name])]);
    }
    await new Promise((r) => setTimeout(r, 500));
    const baseDown = await iperf('c', 4, true);
    const baseUp = await iperf('c', 4, false);
    lines.push(row('unlimited c alone, no shaping anywhere, download IPv4', baseDown, null), row('same, upload IPv4', baseUp, null));
    await limit('a', 20, 10);
    await limit('b', 20, 10);
    for (const family of [4, 6] as const) {
      const [a, b] = await Promise.all([iperf('a', family, true), iperf('b', family, true)]);
      lines.push(row(`a and b at once, download IPv${family}`, a, 20), row(`(b)`, b, 20));
      const [ua, ub] = await Promise.all([iperf('a', family, false), iperf('b', family, false)]);
      lines.push(row(`a and b at once, upload IPv${family}`, ua, 10), row(`(b)`, ub, 10));
    }
    await limit('a', 100, 50);
    lines.push(row('a alone, download IPv4', await iperf('a', 4, true), 100), row('a alone, upload IPv4', await iperf('a', 4, false), 50));
    await limit('a', 2, 1);
    lines.push(row('a alone, download IPv4', await iperf('a', 4, true), 2), row('a alone, upload IPv6', await iperf('a', 6, false), 1));
    const afterDown = await iperf('c', 4, true);
    const afterUp = await iperf('c', 4, false);
    lines.push(`| unlimited c alone beside limited a and b, download IPv4 | none | ${afterDown.toFixed(2)} | ${(afterDown / baseDown * 100).toFixed(0)}% of its baseline |`);
    lines.push(`| same, upload IPv4 | none | ${afterUp.toFixed(2)} | ${(afterUp / baseUp * 100).toFixed(0)}% of its baseline |`);
  } finally {
    await w.d?.stop();
    for (const c of Object.values(w.clients)) c.destroy();
    w.router.destroy();
  }
  process.stdout.write([...machineLines(), `- iperf3 ${SECONDS} s, -O 3, TCP, one stream a run; the receiver's rate`, '', ...lines].join('\n') + '\n');
}

main().catch((err) => { process.stderr.write(`${err instanceof Error ? err.stack : err}\n`); process.exit(1); });
