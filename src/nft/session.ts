// Incremental batches through one long-lived `nft -i` instead of one `nft -f -` each: a
// one-shot nft that deleted elements waits 10-20 ms in close() for an RCU grace period
// before it can exit; a session keeps its netlink socket and answers in well under a
// millisecond. Batches are written to its stdin and its answer read from stderr without
// holding the event loop; one batch at a time, in the order they were asked for.
// Each batch is one line (nft makes each line one transaction) followed by a line that
// cannot parse, whose error marks the end of that batch's answer; nothing before it means
// committed. A session that does not answer within the bound is killed and the batch fails.
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { CommandError, TOOL_TIMEOUT_MS } from '../kernel/command';
import { applyBatch } from './apply';

// Private folders of live sessions (nft -i keeps a history file in HOME), removed at exit.
const homes = new Set<string>();
process.once('exit', () => { for (const h of homes) fs.rmSync(h, { recursive: true, force: true }); });

interface Waiter { seq: number; resolve(said: string): void; reject(err: Error): void }
interface Session { child: ChildProcessByStdio<Writable, null, Readable>; said: string; batches: number; waiter: Waiter | null; ended: string | null }

/**
 * Batches one `nft -i` takes before a fresh one replaces it: nft 1.0.6's interactive mode
 * gets slower with every line it has read (0.37 ms a batch at first, 1.2 ms after 12,000),
 * so a long-lived one would make changes cost more the longer the daemon runs.
 */
export const SESSION_BATCHES = 1000;

/** nft's message without its caret lines, each line cut short (a batch line can be long). */
function brief(text: string): string {
  return text.split('\n').filter((l) => l.trim() !== '' && !/^\s*\^+\s*$/.test(l)).slice(0, 6)
    .map((l) => (l.length > 300 ? `${l.slice(0, 300)}…` : l)).join('; ');
}

const failed = (message: string): CommandError => new CommandError('nft', ['-i'], `nft failed: ${message}`, 1);

export class NftSession {
  private session: Session | null = null;
  private home: string | null = null;
  private seq = 0;
  private mode: 'unknown' | 'session' | 'one-shot' = 'unknown';
  /** The batch before this one: batches never overlap. */
  private tail: Promise<unknown> = Promise.resolve();
  /** The environment of the first start: a session started again after a death is the same nft. */
  private env: NodeJS.ProcessEnv | null = null;

  /** `onOneShot(reason)` is told once when this nft has no usable `nft -i` (a build without its CLI). */
  constructor(private readonly timeoutMs = TOOL_TIMEOUT_MS, private readonly onOneShot: (reason: string) => void = () => {}, private readonly batchesPerSession = SESSION_BATCHES) {}

  /** Applies a batch of element adds/deletes as one transaction; rejects with nft's message. */
  apply(batch: string): Promise<void> {
    const line = batch.split('\n').map((l) => l.trim()).filter(Boolean).join('; ');
    if (line === '') return Promise.resolve();
    // HOME points at a private folder: interactive nft keeps a history file there.
    this.env ??= { ...process.env, HOME: this.homeDir() };
    const next = this.tail.then(() => this.applyLine(batch, line));
    this.tail = next.catch(() => {});
    return next;
  }

  /** Process id of the running `nft -i`, if one runs (tests stop it to see a bound hold). */
  pid(): number | null { return this.session?.child.pid ?? null; }

  async close(): Promise<void> {
    await this.tail;
    // Our end of its stdin closed, nft reads the end of its input and exits.
    this.drop(false);
    if (this.home) {
      fs.rmSync(this.home, { recursive: true, force: true });
      homes.delete(this.home);
    }
    this.home = null;
  }

  private async applyLine(batch: string, line: string): Promise<void> {
    if (this.mode === 'unknown') this.mode = await this.probe();
    if (this.mode === 'one-shot') return applyBatch(batch);
    await this.send(line);
  }

  private async probe(): Promise<'session' | 'one-shot'> {
    try {
      await this.send('', Math.min(this.timeoutMs, 5000));
      return 'session';
    } catch (err) {
      this.drop(true);
      this.onOneShot(err instanceof Error ? err.message : String(err));
      return 'one-shot';
    }
  }

  private async send(line: string, timeoutMs = this.timeoutMs): Promise<void> {
    const s = (this.session ??= this.start());
    const seq = ++this.seq;
    let timer: NodeJS.Timeout | undefined;
    let said: string;
    try {
      said = await new Promise<string>((resolve, reject) => {
        if (s.ended !== null) return reject(failed(`nft -i exited (${s.ended}): ${brief(s.said) || 'no message'}`));
        s.waiter = { seq, resolve, reject };
        timer = setTimeout(() => reject(failed(`nft did not answer within ${timeoutMs / 1000} s and was killed`)), timeoutMs);
        s.child.stdin.write(`${line ? `${line}\n` : ''}wgcp-batch-end-${seq}\n`);
        this.settle(s);
      });
    } catch (err) {
      // A child given up on (dead, or killed after a timeout) is never asked again.
      this.drop(true);
      throw err;
    } finally {
      clearTimeout(timer);
      s.waiter = null;
    }
    // Its input ended, this nft exits; the next batch starts a fresh one.
    if (++s.batches >= this.batchesPerSession) this.drop(false);
    if (said !== '') throw failed(brief(said));
  }

  /** Hands the waiting batch its answer once nft's stderr holds the error of its end line. */
  private settle(s: Session): void {
    const w = s.waiter;
    if (!w) return;
    // The end line's error is the end line itself and a line of carets under it.
    const m = new RegExp(`\\nwgcp-batch-end-${w.seq}\\n *\\^+\\n`).exec(s.said);
    if (!m) return;
    const said = s.said.slice(0, Math.max(0, s.said.lastIndexOf('Error:', m.index))).trim();
    s.said = s.said.slice(m.index + m[0].length);
    w.resolve(said);
  }

  private homeDir(): string {
    if (!this.home) {
      this.home = fs.mkdtempSync(path.join(os.tmpdir(), 'wgcp-nft-'));
      homes.add(this.home);
    }
    return this.home;
  }

  private start(): Session {
    const child = spawn('nft', ['-i'], { env: this.env ?? { ...process.env, HOME: this.homeDir() }, stdio: ['pipe', 'ignore', 'pipe'] });
    const s: Session = { child, said: '', batches: 0, waiter: null, ended: null };
    child.stderr.setEncoding('utf8').on('data', (d: string) => { s.said += d; this.settle(s); });
    child.stdin.on('error', () => { /* a dead nft: its exit below says why */ });
    child.on('error', (err: NodeJS.ErrnoException) => this.ended(s, err.code === 'ENOENT' ? 'not found' : err.message));
    child.on('close', (code, signal) => this.ended(s, signal ? `killed by ${signal}` : `exit code ${code}`));
    return s;
  }

  private ended(s: Session, how: string): void {
    s.ended ??= how;
    s.waiter?.reject(failed(`nft -i exited (${how}): ${brief(s.said) || 'no message'}`));
    // A child that ends between batches is let go; the next batch starts another.
    if (this.session === s) this.session = null;
  }

  private drop(kill: boolean): void {
    const s = this.session;
    this.session = null;
    if (!s) return;
    if (kill && s.child.exitCode === null) s.child.kill('SIGKILL');
    s.child.stdin.end();
    // A child given up on may have left a grandchild holding its stderr: stop listening.
    if (kill) s.child.stderr.destroy();
  }
}
