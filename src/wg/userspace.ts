// wireguard-go as supervised children of the daemon, for kernels without WireGuard: one
// `wireguard-go -f <if>` a server, restarted with backoff if it dies, after which the
// owner re-applies the interface (the new process starts empty). Each ends with the daemon,
// even a killed one (parent-death.ts).
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Logger } from '../log';
import { sleep, succeeds } from '../exec/command';
import { checkIfname, type LinkDriver } from './link';
import { parentDeathPrefix } from './parent-death';
import { deleteOwnLink, foreignLinkError, isForeignLink, linkExists, markOwnLink } from './link-owner';

export const SOCKET_DIR = '/var/run/wireguard';
const START_TIMEOUT_MS = 10_000;
const MAX_BACKOFF_MS = 30_000;

/** An old wireguard-go removes its socket as it exits; a new one must not answer through the old socket. */
async function waitSocketGone(ifname: string): Promise<void> {
  const deadline = Date.now() + 2000;
  while (fs.existsSync(`${SOCKET_DIR}/${ifname}.sock`) && Date.now() < deadline) await sleep(10);
}

interface Supervised {
  child: ChildProcess;
  stopping: boolean;
  backoffMs: number;
  restartTimer?: NodeJS.Timeout;
  /** Where the child's stderr goes (quoted in errors and the log). */
  stderrFile: string;
}

/** The last lines wireguard-go wrote to stderr, as one line. */
function stderrTail(s: Supervised): string {
  try {
    return fs.readFileSync(s.stderrFile, 'utf8').trim().split('\n').slice(-3).join('; ').slice(-300);
  } catch {
    return '';
  }
}

/** True once the child has exited (a zombie, or gone), asked of /proc: its exit event may not have run yet. */
function hasExited(pid: number | undefined): boolean {
  if (pid === undefined) return true;
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}

export class UserspaceDriver implements LinkDriver {
  readonly kind = 'wireguard-go' as const;
  private readonly running = new Map<string, Supervised>();
  private closed = false;
  private errDir: string | null = null;

  /** `onRestart(ifname)` runs after a dead child was replaced; it must re-apply the interface. */
  constructor(private readonly log: Logger, private readonly onRestart: (ifname: string) => Promise<void>, private readonly binary = 'wireguard-go') {}

  async create(ifname: string): Promise<void> {
    checkIfname(ifname);
    if (this.running.has(ifname)) throw new Error(`wireguard-go already runs ${ifname}`);
    // A device left by an earlier daemon (killed without cleanup) cannot be supervised: replace
    // it. A link wgcp did not make is never replaced.
    if (isForeignLink(ifname)) throw foreignLinkError(ifname);
    if (linkExists(ifname)) {
      await deleteOwnLink(ifname);
      await waitSocketGone(ifname);
    }
    const s = await this.launch(ifname, 500);
    try {
      await markOwnLink(ifname);
    } catch (err) {
      s.stopping = true;
      s.child.kill('SIGKILL');
      throw err;
    }
    this.running.set(ifname, s);
  }

  async remove(ifname: string): Promise<void> {
    const s = this.running.get(ifname);
    if (s) {
      s.stopping = true;
      clearTimeout(s.restartTimer);
      this.running.delete(ifname);
    }
    // Deleting the device makes wireguard-go exit; the signal covers a child stuck before that.
    if (!isForeignLink(ifname)) await deleteOwnLink(ifname);
    if (s && s.child.exitCode === null) s.child.kill('SIGTERM');
    // The name may be reused at once: the next wireguard-go must not find the old socket.
    await waitSocketGone(ifname);
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
    if (this.errDir) fs.rmSync(this.errDir, { recursive: true, force: true });
  }

  private async launch(ifname: string, backoffMs: number): Promise<Supervised> {
    // stderr goes to a file: the start-up wait's error must be able to quote what wireguard-go said.
    const stderrFile = path.join(this.stderrDir(), `${ifname}.err`);
    const fd = fs.openSync(stderrFile, 'w', 0o600);
    let child: ChildProcess;
    try {
      // PR_SET_PDEATHSIG is kept across exec and fires when the spawning thread ends:
      // Node spawns from its main thread, which lives as long as the process.
      const [cmd, ...args] = [...parentDeathPrefix(), this.binary, '-f', ifname];
      child = spawn(cmd, args, {
        env: { ...process.env, WG_PROCESS_FOREGROUND: '1', LOG_LEVEL: 'error' },
        stdio: ['ignore', 'ignore', fd],
      });
    } finally {
      fs.closeSync(fd);
    }
    const s: Supervised = { child, stopping: false, backoffMs, stderrFile };
    child.on('error', (err) => this.log.error('wireguard-go could not run', { interface: ifname, error: err.message }));
    child.on('exit', (code, signal) => this.exited(ifname, s, code, signal));
    await this.waitReady(ifname, s);
    this.log.info('wireguard-go started', { interface: ifname, pid: child.pid });
    return s;
  }

  /** Waits until the device and its UAPI socket answer. */
  private async waitReady(ifname: string, s: Supervised): Promise<void> {
    const socket = `${SOCKET_DIR}/${ifname}.sock`;
    const deadline = Date.now() + START_TIMEOUT_MS;
    let died = false;
    while (Date.now() < deadline && !(died = hasExited(s.child.pid))) {
      if (fs.existsSync(socket) && await succeeds('wg', ['show', ifname, 'listen-port'], 2000)) return;
      await sleep(10);
    }
    s.stopping = true;
    s.child.kill('SIGKILL');
    const said = stderrTail(s);
    const how = died ? 'exited before it brought up' : `did not bring up ${ifname} within ${START_TIMEOUT_MS / 1000} s`;
    throw new Error(`wireguard-go ${died ? `${how} ${ifname}` : how}: ${said || 'it said nothing'}`);
  }

  private stderrDir(): string {
    if (!this.errDir || !fs.existsSync(this.errDir)) this.errDir = fs.mkdtempSync(path.join(os.tmpdir(), 'wgcp-wggo-'));
    return this.errDir;
  }

  private exited(ifname: string, s: Supervised, code: number | null, signal: string | null): void {
    if (s.stopping || this.closed || this.running.get(ifname) !== s) return;
    this.log.warn('wireguard-go exited; restarting it', { interface: ifname, code, signal, stderr: stderrTail(s), inMs: s.backoffMs });
    s.restartTimer = setTimeout(() => void this.restart(ifname, s), s.backoffMs);
  }

  private async restart(ifname: string, dead: Supervised): Promise<void> {
    if (this.closed || this.running.get(ifname) !== dead) return;
    try {
      if (isForeignLink(ifname)) throw foreignLinkError(ifname);
      await deleteOwnLink(ifname);
      await waitSocketGone(ifname);
      const next = await this.launch(ifname, Math.min(dead.backoffMs * 2, MAX_BACKOFF_MS));
      await markOwnLink(ifname);
      this.running.set(ifname, next);
      await this.onRestart(ifname);
      // A child that stays up for a minute earns back the short delay.
      setTimeout(() => { if (this.running.get(ifname) === next) next.backoffMs = 500; }, 60_000).unref();
    } catch (err) {
      this.log.error('wireguard-go restart failed; trying again', { interface: ifname, error: err instanceof Error ? err.message : String(err) });
      dead.backoffMs = Math.min(dead.backoffMs * 2, MAX_BACKOFF_MS);
      dead.restartTimer = setTimeout(() => void this.restart(ifname, dead), dead.backoffMs);
    }
  }
}
