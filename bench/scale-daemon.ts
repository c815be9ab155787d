// The real wgcpd for the end-to-end bench, run as a child of the bench process, which is
// already inside its own network and mount namespaces: WGCP_KERNEL=on, so every change
// reaches wireguard-go and the `inet wgcp` table, as on a router.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client } from './scale-http';

export const SALT = 'scale-bench-salt-0123456789';
// WGCP_BENCH_MAIN: another build's main.js (e.g. the one before a change), for before/after figures.
const MAIN = process.env.WGCP_BENCH_MAIN ?? path.join(__dirname, '..', 'src', 'main.js');

export interface Memory { rssMB: number; hwmMB: number; anonMB: number; fileMB: number }

export class Daemon {
  private child: ChildProcess | null = null;
  private out = '';
  client!: Client;
  /** Wall time of the last start: spawn until /healthz answers (store opened, kernel reconciled, first usage cycle). */
  startMs = 0;

  constructor(readonly dataDir: string, private readonly port: number, private readonly env: Record<string, string> = {}) {}

  get pid(): number { return this.child!.pid!; }
  log(): string { return this.out; }

  async start(): Promise<void> {
    this.out = '';
    const nodeArgs = (process.env.WGCP_BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
    const t0 = performance.now();
    const child = spawn(process.execPath, [...nodeArgs, MAIN], {
      env: {
        ...process.env, WGCP_DATA_DIR: this.dataDir, WGCP_LISTEN: `127.0.0.1:${this.port}`, WGCP_KERNEL: 'on',
        WGCP_LOG_LEVEL: 'info', SERVER_SALT: SALT, ...this.env,
      },
      // Its folder is the data folder: a heap snapshot (SIGUSR2) lands there.
      cwd: this.dataDir,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    const keep = (d: Buffer) => { this.out = (this.out + d.toString()).slice(-200_000); };
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    // WGCP_BENCH_START_S: a slower machine's limit (wgcpd needs 20-80 s under QEMU's TCG).
    const deadline = Date.now() + Number(process.env.WGCP_BENCH_START_S ?? 60) * 1000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`wgcpd exited with ${child.exitCode}:\n${this.out}`);
      if (fs.existsSync(path.join(this.dataDir, 'api-key'))) {
        this.client ??= new Client(this.port, fs.readFileSync(path.join(this.dataDir, 'api-key'), 'utf8').trim());
        const res = await this.client.request('GET', '/healthz', undefined, false).catch(() => null);
        if (res?.status === 200) break;
      }
      if (Date.now() > deadline) throw new Error(`wgcpd did not answer /healthz:\n${this.out}`);
      await new Promise((r) => setTimeout(r, 5));
    }
    this.startMs = performance.now() - t0;
  }

  /** The log's `kernel reconciled` line: how many peers the start brought up. */
  reconciledPeers(): number | null {
    const m = /"msg":"kernel reconciled"[^\n]*"peers":(\d+)/.exec(this.out);
    return m ? Number(m[1]) : null;
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    await exited;
    clearTimeout(timer);
    // A daemon stopped before it was ready has no client yet.
    if (this.client) {
      this.client.close();
      this.client = new Client(this.port, this.client.key);
    }
  }

  /** RSS, its peak, and its anonymous (heap, SQLite cache) and file-backed (code) parts, from /proc. */
  memory(): Memory {
    const status = fs.readFileSync(`/proc/${this.pid}/status`, 'utf8');
    const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) / 1024;
    return { rssMB: kb('VmRSS'), hwmMB: kb('VmHWM'), anonMB: kb('RssAnon'), fileMB: kb('RssFile') };
  }

  /** Asks for a heap snapshot (needs WGCP_BENCH_NODE_ARGS=--heapsnapshot-signal=SIGUSR2). */
  heapSnapshot(): void { this.child?.kill('SIGUSR2'); }
}
