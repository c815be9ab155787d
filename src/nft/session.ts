// Incremental batches through one long-lived `nft -i` instead of one `nft -f -` each: a
// one-shot nft that deleted elements waits 10-20 ms in close() for an RCU grace period
// before it can exit; a session keeps its netlink socket and answers in well under a
// millisecond. Callers stay synchronous (they run inside the API's transaction), so nft's
// stdin and stderr are named pipes this thread writes and reads itself, polling with short
// sleeps until the batch's answer is in or the timeout has passed. (A worker thread did it
// before: 11 MB of RSS for a second V8, and it reset the daemon's V8 flags.)
// Each batch is one line (nft makes each line one transaction) followed by a line that
// cannot parse, whose error marks the end of that batch's answer; nothing before it means
// committed.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { CommandError } from '../kernel/command';
import { applyBatch } from './apply';

// Private folders of live sessions, removed at exit even when close() never ran.
const homes = new Set<string>();
process.once('exit', () => { for (const h of homes) fs.rmSync(h, { recursive: true, force: true }); });

const sleeper = new Int32Array(new SharedArrayBuffer(4));
const pause = (ms: number): void => { Atomics.wait(sleeper, 0, 0, ms); };
const { O_RDONLY, O_WRONLY, O_RDWR, O_NONBLOCK } = fs.constants;

interface Session { child: ChildProcess; input: number; errors: number; said: string; decoder: StringDecoder; batches: number }

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

/** How a child that closed its stderr ended, read from /proc while it is a zombie nobody has reaped yet. */
function exitOf(pid: number): string {
  for (const until = Date.now() + 1000; Date.now() < until; pause(5)) {
    let stat: string;
    try { stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8'); } catch { return 'exited'; }
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (fields[0] !== 'Z') continue;
    const status = Number(fields[fields.length - 1]);
    const signal = Object.entries(os.constants.signals).find(([, n]) => n === (status & 0x7f))?.[0];
    return (status & 0x7f) !== 0 ? signal ?? `signal ${status & 0x7f}` : `exit code ${(status >> 8) & 0xff}`;
  }
  return 'exited';
}

export class NftSession {
  private session: Session | null = null;
  private home: string | null = null;
  private seq = 0;
  private mode: 'unknown' | 'session' | 'one-shot' = 'unknown';
  private readonly buf = Buffer.alloc(16 * 1024);
  /** The environment of the first start: a session started again after a death is the same nft. */
  private env: NodeJS.ProcessEnv | null = null;

  /** `onOneShot(reason)` is told once when this nft has no usable `nft -i` (a build without its CLI). */
  constructor(private readonly timeoutMs = 30_000, private readonly onOneShot: (reason: string) => void = () => {}, private readonly batchesPerSession = SESSION_BATCHES) {}

  /** Applies a batch of element adds/deletes as one transaction; throws with nft's message. */
  apply(batch: string): void {
    const line = batch.split('\n').map((l) => l.trim()).filter(Boolean).join('; ');
    if (line === '') return;
    if (this.mode === 'unknown') this.mode = this.probe();
    if (this.mode === 'one-shot') return applyBatch(batch);
    this.send(line);
  }

  async close(): Promise<void> {
    // Our end of its stdin closed, nft reads the end of its input and exits.
    this.drop(false);
    if (this.home) {
      fs.rmSync(this.home, { recursive: true, force: true });
      homes.delete(this.home);
    }
    this.home = null;
  }

  private probe(): 'session' | 'one-shot' {
    try {
      this.send('', Math.min(this.timeoutMs, 5000));
      return 'session';
    } catch (err) {
      this.drop(true);
      this.onOneShot(err instanceof Error ? err.message : String(err));
      return 'one-shot';
    }
  }

  private send(line: string, timeoutMs = this.timeoutMs): void {
    const s = (this.session ??= this.start());
    const seq = ++this.seq;
    const deadline = performance.now() + timeoutMs;
    let said: string;
    try {
      this.write(s, Buffer.from(`${line ? `${line}\n` : ''}wgcp-batch-end-${seq}\n`), deadline, timeoutMs);
      said = this.answer(s, seq, deadline, timeoutMs);
    } catch (err) {
      // A child given up on (dead, or killed after a timeout) is never asked again.
      this.drop(true);
      throw err;
    }
    // Its input ended, this nft exits; the next batch starts a fresh one.
    if (++s.batches >= this.batchesPerSession) this.drop(false);
    if (said !== '') throw failed(brief(said));
  }

  private write(s: Session, data: Buffer, deadline: number, timeoutMs: number): void {
    for (let off = 0; off < data.length;) {
      try {
        off += fs.writeSync(s.input, data, off);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'EPIPE') throw this.died(s);
        if (code !== 'EAGAIN') throw err;
        if (performance.now() > deadline) throw failed(`nft did not answer within ${timeoutMs / 1000} s`);
        pause(1);
      }
    }
  }

  /** nft's stderr up to the end line of batch `seq`; what it said before that line's error is the batch's. */
  private answer(s: Session, seq: number, deadline: number, timeoutMs: number): string {
    // The end line's error is the end line itself and a line of carets under it.
    const end = new RegExp(`\\nwgcp-batch-end-${seq}\\n *\\^+\\n`);
    for (let wait = 0.02; ;) {
      const m = end.exec(s.said);
      if (m) {
        const said = s.said.slice(0, Math.max(0, s.said.lastIndexOf('Error:', m.index))).trim();
        s.said = s.said.slice(m.index + m[0].length);
        return said;
      }
      let n = -1;
      try {
        n = fs.readSync(s.errors, this.buf, 0, this.buf.length, null);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') throw err;
      }
      if (n > 0) {
        s.said += s.decoder.write(this.buf.subarray(0, n));
        wait = 0.02;
        continue;
      }
      if (n === 0) throw this.died(s);
      if (performance.now() > deadline) throw failed(`nft did not answer within ${timeoutMs / 1000} s`);
      pause(wait);
      wait = Math.min(wait * 2, 1);
    }
  }

  private died(s: Session): CommandError {
    return failed(`nft -i exited (${exitOf(s.child.pid!)}): ${brief(s.said) || 'no message'}`);
  }

  /**
   * Starts `nft -i` on two named pipes. Each end is opened so that no open waits and nft's
   * own ends block as a pipe's do; nft holds no writer of its stdin, so when this process
   * goes, nft reads the end of its input and exits too.
   */
  private start(): Session {
    if (!this.home) {
      this.home = fs.mkdtempSync(path.join(os.tmpdir(), 'wgcp-nft-'));
      homes.add(this.home);
    }
    const inPath = path.join(this.home, `in-${this.seq}`);
    const errPath = path.join(this.home, `err-${this.seq}`);
    const made = spawnSync('mkfifo', ['-m', '600', inPath, errPath], { encoding: 'utf8' });
    if (made.status !== 0) throw failed(`mkfifo: ${made.error?.message ?? made.stderr.trim()}`);
    const holdIn = fs.openSync(inPath, O_RDWR);
    const input = fs.openSync(inPath, O_WRONLY | O_NONBLOCK);
    const nftIn = fs.openSync(inPath, O_RDONLY);
    fs.closeSync(holdIn);
    const errors = fs.openSync(errPath, O_RDONLY | O_NONBLOCK);
    const nftErr = fs.openSync(errPath, O_WRONLY);
    // HOME points at the private folder: interactive nft keeps a history file there.
    this.env ??= { ...process.env, HOME: this.home };
    const child = spawn('nft', ['-i'], { env: this.env, stdio: [nftIn, 'ignore', nftErr] });
    fs.closeSync(nftIn);
    fs.closeSync(nftErr);
    fs.rmSync(inPath);
    fs.rmSync(errPath);
    const s: Session = { child, input, errors, said: '', decoder: new StringDecoder('utf8'), batches: 0 };
    child.on('error', () => { /* no nft: found below, or by the next read */ });
    // A child that ends between batches is let go; the next batch starts another.
    child.on('exit', () => { if (this.session === s) this.drop(false); });
    if (child.pid === undefined) {
      for (const fd of [input, errors]) fs.closeSync(fd);
      throw failed('nft: not found');
    }
    return s;
  }

  private drop(kill: boolean): void {
    const s = this.session;
    this.session = null;
    if (!s) return;
    if (kill && s.child.exitCode === null) s.child.kill('SIGKILL');
    for (const fd of [s.input, s.errors]) { try { fs.closeSync(fd); } catch { /* closed already */ } }
  }
}
