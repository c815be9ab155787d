// What one peer's bandwidth limit costs through the API at 10 and at 10,000 limited peers
// (issue 25: at most 1.5x), wgcpd on wireguard-go in a namespace of its own. Per size:
// a limited peer's rate changed (one `tc class replace`), limits set on a peer that had none
// (a spare slot's two classes changed, four map elements) and lifted again (four elements
// out; the slot is a spare); request sent to answer read. Then wgcpd is restarted: its start-up makes every class and element again.
//   npx tsc -p . && node dist/bench/shaping-cost.js        (root; makes and removes its namespace)
//   WGCP_BENCH_SIZES=10,10000 WGCP_BENCH_ROUNDS=100
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Daemon } from './scale-daemon';
import { say } from './scale-measure';
import { machineLines, runInNamespace } from './scale-namespace';

const SIZES = (process.env.WGCP_BENCH_SIZES ?? '10,10000').split(',').map(Number);
const ROUNDS = Number(process.env.WGCP_BENCH_ROUNDS ?? 100);
const SPARE = 20;

const quantile = (xs: number[], q: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
};
const fmt = (xs: number[]): string => `${quantile(xs, 0.5).toFixed(2)} / ${quantile(xs, 0.95).toFixed(2)}`;

async function inside(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'wgcp-shaping-'));
  const daemon = new Daemon(dataDir, 18082, { WGCP_USAGE_INTERVAL_S: '3600' });
  const lines = ['| limited peers | rate changed | limits set on a peer without | limits lifted | plain update (name) |', '|---:|---:|---:|---:|---:|'];
  const medians: Record<string, number[]> = {};
  let startLine = '';
  try {
    await daemon.start();
    const s = await daemon.client.must('POST', '/api/servers', { name: 'shaping', endpoint: 'vpn.example.com:51960', mode: 'forward', address: '10.94.0.1/16', interface: `wgsh${process.pid % 10000}`, listenPort: 51960 });
    const serverId = s.json.id as number;
    const limited: number[] = [];
    const spare: number[] = [];
    for (let i = 0; i < SPARE; i++) spare.push((await daemon.client.must('POST', `/api/servers/${serverId}/peers`, { name: `spare-${i}` })).json.id);
    for (const size of SIZES) {
      while (limited.length < size) {
        const i = limited.length;
        limited.push((await daemon.client.must('POST', `/api/servers/${serverId}/peers`, { name: `limited-${i}`, downloadLimitMbps: 10 + (i % 90), uploadLimitMbps: 5 + (i % 45) })).json.id);
        if (limited.length % 1000 === 0) say(`${limited.length} limited peers`);
      }
      const change: number[] = [];
      const set: number[] = [];
      const lift: number[] = [];
      const plain: number[] = [];
      for (let r = 0; r < ROUNDS; r++) {
        const id = limited[Math.floor(Math.random() * limited.length)];
        change.push((await daemon.client.must('PUT', `/api/peers/${id}`, { downloadLimitMbps: 1 + (r % 50) + 0.5 })).ms);
        const sp = spare[r % SPARE];
        set.push((await daemon.client.must('PUT', `/api/peers/${sp}`, { downloadLimitMbps: 25, uploadLimitMbps: 12.5 })).ms);
        lift.push((await daemon.client.must('PUT', `/api/peers/${sp}`, { downloadLimitMbps: null, uploadLimitMbps: null })).ms);
        plain.push((await daemon.client.must('PUT', `/api/peers/${id}`, { name: `limited-renamed-${r}` })).ms);
      }
      lines.push(`| ${size.toLocaleString('en')} | ${fmt(change)} | ${fmt(set)} | ${fmt(lift)} | ${fmt(plain)} |`);
      medians[size] = [change, set, lift, plain].map((xs) => quantile(xs, 0.5));
      say(lines[lines.length - 1]);
    }
    const [lo, hi] = [SIZES[0], SIZES[SIZES.length - 1]];
    lines.push(`| ${hi.toLocaleString('en')} vs ${lo} (medians) | ${medians[hi].map((m, i) => `${(m / medians[lo][i]).toFixed(2)}x`).join(' | ')} |`);
    await daemon.stop();
    const t0 = performance.now();
    await daemon.start();
    const healthy = performance.now() - t0;
    let made: RegExpExecArray | null = null;
    while (!(made = /"msg":"bandwidth limits set up"[^\n]*"limitedPeers":(\d+)/.exec(daemon.log())) && performance.now() - t0 < 300_000) await new Promise((r) => setTimeout(r, 100));
    const shaped = performance.now() - t0;
    const probe = await daemon.client.must('PUT', `/api/peers/${limited[0]}`, { downloadLimitMbps: 33 });
    startLine = `- start-up with ${made?.[1] ?? '?'} limited peers: /healthz answers after ${healthy.toFixed(0)} ms; every class and element is made again ${shaped.toFixed(0)} ms after spawn; the first limit change after it ${probe.ms.toFixed(1)} ms`;
  } catch (err) {
    say(`wgcpd's last output:\n${daemon.log().slice(-3000)}`);
    throw err;
  } finally {
    await daemon.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  process.stdout.write([...machineLines(), `- ${ROUNDS} rounds a size; milliseconds through HTTP, median / p95`, startLine, '', ...lines].join('\n') + '\n');
}

if (process.argv.includes('--inside')) {
  inside().catch((err) => { process.stderr.write(`${err instanceof Error ? err.stack : err}\n`); process.exit(1); });
} else {
  runInNamespace(__filename, 'shcost');
}
