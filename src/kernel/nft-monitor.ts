// A kept `nft monitor` child: tells when someone other than wgcp changed `inet wgcp` (the
// policy) or `netdev wgcp` (the bandwidth limits' maps and chains). nft prints each
// transaction's lines and then `# new generation N by process PID (comm)`; a transaction that
// touched a table and came from a process that is not one of wgcp's own (its `nft -i`
// session, or a child of the daemon) is foreign, and the owner is told which kinds to compare
// after a short quiet time, so that a burst (a flush, a script) costs one compare. Restarted
// with back-off if it dies.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import type { Logger } from '../log';

export const MONITOR_QUIET_MS = 200;
/** How much of a line is read: its verb, family, table and set, or a generation's pid. */
export const LINE_HEAD = 200;
const RESTART_FIRST_MS = 1000;
const RESTART_MAX_MS = 60_000;

/** What a table of wgcp's holds, as the reconciler's kinds name it. */
export type WatchedKind = 'nft' | 'shaping';

/** Which of wgcp's tables a transaction's line touched: `inet wgcp` is the policy, `netdev wgcp` the limits; null: neither. */
export function wgcpTableOf(line: string): WatchedKind | null {
  if (/ inet wgcp( |$)/.test(line)) return 'nft';
  if (/ netdev wgcp( |$)/.test(line)) return 'shaping';
  return null;
}

/** The pid of a `# new generation` line, or null for any other line. */
export function generationPid(line: string): number | null {
  const m = /^# new generation \d+ by process (\d+)/.exec(line);
  return m ? Number(m[1]) : null;
}

/** True when the process is the daemon's own child (it may be gone already: then it is not known as ours). */
function isOwnChild(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === process.pid;
  } catch {
    return false;
  }
}

export class NftMonitor {
  private child: ChildProcess | null = null;
  /** The tables the transaction being read touched so far. */
  private touched = new Set<WatchedKind>();
  /** The kinds foreign transactions touched since the owner was last told. */
  private readonly pending = new Set<WatchedKind>();
  /** The head of the line being read (its first LINE_HEAD characters). */
  private head = '';
  private quiet: NodeJS.Timeout | null = null;
  private restartTimer: NodeJS.Timeout | null = null;
  private backoffMs = RESTART_FIRST_MS;
  private closed = false;
  /** Foreign transactions seen (for tests and the log). */
  foreign = 0;

  /** `ownPids()`: pids wgcp's own nft runs under now; `onForeign(kinds)` after a quiet time. */
  constructor(private readonly log: Logger, private readonly ownPids: () => (number | null)[], private readonly onForeign: (kinds: WatchedKind[]) => void, private readonly quietMs = MONITOR_QUIET_MS) {}

  start(): void {
    if (this.closed || this.child) return;
    const child = spawn('nft', ['monitor'], { stdio: ['ignore', 'pipe', 'ignore'] });
    this.child = child;
    child.stdout!.setEncoding('utf8').on('data', (d: string) => this.take(d));
    child.on('error', (err) => this.log.warn('nft monitor could not run: drift of the table is seen by the periodic audit only', { error: err.message }));
    child.on('close', () => {
      if (this.child === child) this.child = null;
      if (this.closed) return;
      this.restartTimer = setTimeout(() => { this.restartTimer = null; this.start(); }, this.backoffMs);
      this.restartTimer.unref();
      this.backoffMs = Math.min(this.backoffMs * 2, RESTART_MAX_MS);
    });
    // A monitor that stays up earns back the short delay.
    setTimeout(() => { if (this.child === child) this.backoffMs = RESTART_FIRST_MS; }, 60_000).unref();
  }

  pid(): number | null { return this.child?.pid ?? null; }

  close(): void {
    this.closed = true;
    if (this.quiet) clearTimeout(this.quiet);
    if (this.restartTimer) clearTimeout(this.restartTimer);
    this.child?.kill('SIGTERM');
    this.child = null;
  }

  /**
   * nft's output, a chunk at a time. Each chunk is scanned once and only a line's head is
   * kept (the table and the generation's pid are in its first words): a load of the table
   * prints sets of thousands of elements on one line, and keeping and re-scanning the whole
   * line at each chunk held the event loop for seconds at 10,000 peers (issue 35).
   */
  take(data: string): void {
    let from = 0;
    for (;;) {
      const nl = data.indexOf('\n', from);
      const to = nl < 0 ? data.length : nl;
      if (this.head.length < LINE_HEAD) this.head += data.slice(from, Math.min(to, from + LINE_HEAD - this.head.length));
      if (nl < 0) return;
      this.line(this.head);
      this.head = '';
      from = nl + 1;
    }
  }

  /** What the reader holds of the line not yet ended (for tests: never more than its head). */
  heldChars(): number { return this.head.length; }

  private line(head: string): void {
    const pid = generationPid(head);
    if (pid === null) {
      const kind = wgcpTableOf(head);
      if (kind) this.touched.add(kind);
      return;
    }
    if (this.touched.size > 0 && !this.ownPids().includes(pid) && !isOwnChild(pid)) this.foreignSeen(this.touched);
    this.touched = new Set();
  }

  private foreignSeen(kinds: Set<WatchedKind>): void {
    this.foreign++;
    for (const k of kinds) this.pending.add(k);
    if (this.quiet) clearTimeout(this.quiet);
    this.quiet = setTimeout(() => {
      this.quiet = null;
      const told = [...this.pending];
      this.pending.clear();
      this.onForeign(told);
    }, this.quietMs);
    this.quiet.unref();
  }
}
