// One long-lived tool process that takes batches as lines on its stdin and answers on its
// stderr (`nft -i`, `tc -force -batch -`): starting a process costs far more than a batch.
// Batches go one at a time, in the order they were asked for, without holding the event
// loop. Each batch ends with a line the tool cannot parse, whose error marks the end of that
// batch's answer, so every answer is read from the one stream, in order. What differs
// between tools (the command, how a batch is framed and its answer read, what an end says)
// is a KeptTool. A process that does not answer within the bound is killed and the batch
// fails; one that ends is let go, and the next batch starts another.
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';

/** Where a batch stands: `seq` counts the session's batches; lines count from 1 in the input of its process. */
export interface BatchPlace { seq: number; firstLine: number; endLine: number }

/** A batch's answer read from stderr: the message of its failure (null: it held), and what follows it. */
export interface BatchAnswer { failure: string | null; rest: string }

export interface KeptTool<Batch> {
  command: string;
  args: string[];
  /** The environment of each start; without it, the daemon's own as it is then. */
  env?(): NodeJS.ProcessEnv;
  /** A fresh process after this many batches or lines (a tool may slow down the more it has read). */
  renewAfter: { batches?: number; lines?: number };
  /** The lines written for a batch, the last one the end line that cannot parse. */
  frame(batch: Batch, place: Omit<BatchPlace, 'endLine'>): string[];
  /** The batch's answer once `said` (stderr not yet read) holds the error of its end line; null until then. */
  read(said: string, place: BatchPlace): BatchAnswer | null;
  /** What is said of a process that ended (`how`), given its stderr not yet read. */
  exited(how: string, said: string): string;
  /** The error a batch fails with. */
  failed(message: string): Error;
}

interface Waiter { place: BatchPlace; resolve(failure: string | null): void; reject(err: Error): void }
interface Kept { child: ChildProcessByStdio<Writable, null, Readable>; said: string; batches: number; lines: number; waiter: Waiter | null; ended: string | null }

export class KeptSession<Batch> {
  private kept: Kept | null = null;
  private seq = 0;
  /** The batch before this one: batches never overlap. */
  private tail: Promise<unknown> = Promise.resolve();

  constructor(private readonly tool: KeptTool<Batch>) {}

  /** Runs `work` after all work asked for before it (a send, or the tool's other way of applying). */
  inTurn<T>(work: () => Promise<T>): Promise<T> {
    const next = this.tail.then(work);
    this.tail = next.catch(() => {});
    return next;
  }

  /** Settles once all work asked for so far is done, failed or not. */
  async idle(): Promise<void> { await this.tail; }

  /** Process id of the running tool, if one runs (tests stop it to see a bound hold). */
  pid(): number | null { return this.kept?.child.pid ?? null; }

  /** Writes one batch and waits for its answer; rejects with the tool's failure. Call it in turn (inTurn). */
  async send(batch: Batch, timeoutMs: number): Promise<void> {
    const k = (this.kept ??= this.start());
    const seq = ++this.seq;
    const firstLine = k.lines + 1;
    const lines = this.tool.frame(batch, { seq, firstLine });
    k.lines += lines.length;
    k.batches += 1;
    const place: BatchPlace = { seq, firstLine, endLine: k.lines };
    let timer: NodeJS.Timeout | undefined;
    let failure: string | null;
    try {
      failure = await new Promise<string | null>((resolve, reject) => {
        if (k.ended !== null) return reject(this.tool.failed(this.tool.exited(k.ended, k.said)));
        k.waiter = { place, resolve, reject };
        timer = setTimeout(() => reject(this.tool.failed(`${this.tool.command} did not answer within ${timeoutMs / 1000} s and was killed`)), timeoutMs);
        k.child.stdin.write(`${lines.join('\n')}\n`);
        this.settle(k);
      });
    } catch (err) {
      // A process given up on (dead, or killed after a timeout) is never asked again.
      this.drop(true);
      throw err;
    } finally {
      clearTimeout(timer);
      k.waiter = null;
    }
    // Its input ended, the process exits; the next batch starts a fresh one.
    const { batches = Infinity, lines: most = Infinity } = this.tool.renewAfter;
    if (k.batches >= batches || k.lines >= most) this.drop(false);
    if (failure !== null) throw this.tool.failed(failure);
  }

  /** Lets the process go: its input closed it exits; `kill`: at once, and its stderr no longer read. */
  drop(kill: boolean): void {
    const k = this.kept;
    this.kept = null;
    if (!k) return;
    if (kill && k.child.exitCode === null) k.child.kill('SIGKILL');
    k.child.stdin.end();
    // A process given up on may have left a grandchild holding its stderr: stop listening.
    if (kill) k.child.stderr.destroy();
  }

  /** Hands the waiting batch its answer once stderr holds the error of its end line. */
  private settle(k: Kept): void {
    const w = k.waiter;
    if (!w) return;
    const answer = this.tool.read(k.said, w.place);
    if (!answer) return;
    k.said = answer.rest;
    w.resolve(answer.failure);
  }

  private start(): Kept {
    const { command, args } = this.tool;
    const child = spawn(command, args, { env: this.tool.env?.(), stdio: ['pipe', 'ignore', 'pipe'] });
    const k: Kept = { child, said: '', batches: 0, lines: 0, waiter: null, ended: null };
    child.stderr.setEncoding('utf8').on('data', (d: string) => { k.said += d; this.settle(k); });
    child.stdin.on('error', () => { /* a dead process: its exit below says why */ });
    child.on('error', (err: NodeJS.ErrnoException) => this.ended(k, err.code === 'ENOENT' ? 'not found' : err.message));
    child.on('close', (code, signal) => this.ended(k, signal ? `killed by ${signal}` : `exit code ${code}`));
    return k;
  }

  private ended(k: Kept, how: string): void {
    k.ended ??= how;
    k.waiter?.reject(this.tool.failed(this.tool.exited(how, k.said)));
    // A process that ends between batches is let go; the next batch starts another.
    if (this.kept === k) this.kept = null;
  }
}
