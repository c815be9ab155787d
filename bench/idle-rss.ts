// Idle RSS of wgcpd beside an empty Node, measured the same way: each started as its own
// process, left alone WGCP_BENCH_IDLE_S seconds (20: past start-up and V8's memory reducer),
// then VmRSS read from /proc/<pid>/status. wgcpd runs with the kernel off on a fresh data
// folder. Three runs each; the median is printed. docs/performance.md quotes the figures.
//
//   npx tsc -p . && node dist/bench/idle-rss.js
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const IDLE_S = Number(process.env.WGCP_BENCH_IDLE_S ?? 20);
const DAEMON = path.join(__dirname, '..', 'src', 'main.js');

const rssKb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);
const sleep = (s: number) => new Promise((r) => setTimeout(r, s * 1000));

async function idleRss(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const child = spawn(process.execPath, args, { env, stdio: 'ignore' });
  await sleep(IDLE_S);
  const kb = rssKb(child.pid!);
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  return kb;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(): Promise<void> {
  const empty: number[] = [];
  const wgcpd: number[] = [];
  for (let i = 0; i < 3; i++) {
    empty.push(await idleRss(['-e', 'setInterval(() => {}, 1e9)'], { PATH: process.env.PATH }));
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'wgcp-idle-rss-'));
    try {
      wgcpd.push(await idleRss([DAEMON], { PATH: process.env.PATH, WGCP_DATA_DIR: dataDir, WGCP_KERNEL: 'off', WGCP_LISTEN: '127.0.0.1:0' }));
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }
  const mb = (kb: number) => (kb / 1024).toFixed(1);
  console.log(`node ${process.version}, ${IDLE_S} s idle, VmRSS median of 3`);
  console.log(`empty node: ${mb(median(empty))} MB (${empty.join(', ')} kB)`);
  console.log(`wgcpd, kernel off: ${mb(median(wgcpd))} MB (${wgcpd.join(', ')} kB)`);
  console.log(`difference: ${mb(median(wgcpd) - median(empty))} MB`);
}

void main();
