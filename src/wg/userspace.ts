// wireguard-go as supervised children of the daemon, for kernels without WireGuard: one
// `wireguard-go -f <if>` a server, restarted with backoff if it dies, after which the
// owner re-applies the interface (the new process starts empty).
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import type { Logger } from '../log';
import { sleepSync, succeeds } from '../kernel/command';
import { checkIfname, deleteLink, linkExists, type LinkDriver } from './link';

export const SOCKET_DIR = '/var/run/wireguard';
const START_TIMEOUT_MS = 10_000;
const MAX_BACKOFF_MS = 30_000;

/** An old wireguard-go removes its socket as it exits; a new one must not answer through the old socket. */
function waitSocketGone(ifname: string): void {
  const deadline = Date.now() + 2000;
  while (fs.existsSync(`${SOCKET_DIR}/${ifname}.sock`) && Date.now() < deadline) sleepSync(10);
}

interface Supervised {
  child: ChildProcess;
  stopping: boolean;
  backoffMs: number;
  restartTimer?: NodeJS.Timeout;
  stderr: string;
}

export class UserspaceDriver implements LinkDriver {
  readonly kind = 'wireguard-go' as const;
  private readonly running = new Map<string, Supervised>();
  private closed = false;

  /** `onRestart(ifname)` runs after a dead child was replaced; it must re-apply the interface. */
  constructor(private readonly log: Logger, private readonly onRestart: (ifname: string) => void, private readonly binary = 'wireguard-go') {}

  create(ifname: string): void {
    checkIfname(ifname);
    if (this.running.has(ifname)) throw new Error(`wireguard-go already runs ${ifname}`);
    // A device left by an earlier daemon (killed without cleanup) cannot be supervised: replace it.
    if (linkExists(ifname)) {
      deleteLink(ifname);
      waitSocketGone(ifname);
    }
    this.running.set(ifname, this.launch(ifname, 500));
  }

  remove(ifname: string): void {
    const s = this.running.get(ifname);
    if (s) {
      s.stopping = true;
      clearTimeout(s.restartTimer);
      this.running.delete(ifname);
    }
    // Deleting the device makes wireguard-go exit; the signal covers a child stuck before that.
    deleteLink(ifname);
    if (s && s.child.exitCode === null) s.child.kill('SIGTERM');
  }

  /** Pids of the children, for tests and the log. */
  pids(): Map<string, number> {
    return new Map([...this.running].map(([name, s]) => [name, s.child.pid ?? -1]));
  }

  async close(): Promise<void> {
    this.closed = true;
    const waits: Promise<void>[] = [];
    for (const [, s] of this.running) {
      s.stopping = true;
      clearTimeout(s.restartTimer);
      if (s.child.exitCode !== null || s.child.signalCode !== null) continue;
      waits.push(new Promise((resolve) => {
        const force = setTimeout(() => s.child.kill('SIGKILL'), 3000);
        s.child.once('exit', () => { clearTimeout(force); resolve(); });
        s.child.kill('SIGTERM');
      }));
    }
    this.running.clear();
    await Promise.all(waits);
  }

  private launch(ifname: string, backoffMs: number): Supervised {
    const child = spawn(this.binary, ['-f', ifname], {
      env: { ...process.env, WG_PROCESS_FOREGROUND: '1', LOG_LEVEL: 'error' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const s: Supervised = { child, stopping: false, backoffMs, stderr: '' };
    child.stderr?.on('data', (chunk: Buffer) => { s.stderr = (s.stderr + chunk.toString()).slice(-2000); });
    child.on('error', (err) => this.log.error('wireguard-go could not run', { interface: ifname, error: err.message }));
    child.on('exit', (code, signal) => this.exited(ifname, s, code, signal));
    this.waitReady(ifname, child);
    this.log.info('wireguard-go started', { interface: ifname, pid: child.pid });
    return s;
  }

  /** Blocks until the device and its UAPI socket answer: applies are synchronous. */
  private waitReady(ifname: string, child: ChildProcess): void {
    const socket = `${SOCKET_DIR}/${ifname}.sock`;
    const deadline = Date.now() + START_TIMEOUT_MS;
    while (Date.now() < deadline) {
      if (fs.existsSync(socket) && succeeds('wg', ['show', ifname, 'listen-port'])) return;
      sleepSync(10);
    }
    child.kill('SIGKILL');
    throw new Error(`wireguard-go did not bring up ${ifname} within ${START_TIMEOUT_MS / 1000} s`);
  }

  private exited(ifname: string, s: Supervised, code: number | null, signal: string | null): void {
    if (s.stopping || this.closed || this.running.get(ifname) !== s) return;
    this.log.warn('wireguard-go exited; restarting it', { interface: ifname, code, signal, stderr: s.stderr.trim().slice(-300), inMs: s.backoffMs });
    s.restartTimer = setTimeout(() => this.restart(ifname, s), s.backoffMs);
  }

  private restart(ifname: string, dead: Supervised): void {
    if (this.closed || this.running.get(ifname) !== dead) return;
    try {
      if (linkExists(ifname)) deleteLink(ifname);
      waitSocketGone(ifname);
      const next = this.launch(ifname, Math.min(dead.backoffMs * 2, MAX_BACKOFF_MS));
      this.running.set(ifname, next);
      this.onRestart(ifname);
      // A child that stays up for a minute earns back the short delay.
      setTimeout(() => { if (this.running.get(ifname) === next) next.backoffMs = 500; }, 60_000).unref();
    } catch (err) {
      this.log.error('wireguard-go restart failed; trying again', { interface: ifname, error: err instanceof Error ? err.message : String(err) });
      dead.backoffMs = Math.min(dead.backoffMs * 2, MAX_BACKOFF_MS);
      dead.restartTimer = setTimeout(() => this.restart(ifname, dead), dead.backoffMs);
    }
  }
}
