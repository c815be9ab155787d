// Incremental batches through one long-lived `nft -i` instead of one `nft -f -` each: a
// one-shot nft that deleted elements waits 10-20 ms in close() for an RCU grace period
// before it can exit; a session keeps its netlink socket and answers in well under a
// millisecond. Callers stay synchronous (they run inside the API's transaction): the
// session lives in a worker thread and this thread waits on shared memory, with a timeout.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { CommandError } from '../kernel/command';
import { applyBatch } from './apply';
import type { SessionAnswer } from './session-worker';

const RESULT_BYTES = 16 * 1024;

// Private HOME folders of live sessions, removed at exit even when close() never ran.
const homes = new Set<string>();
process.once('exit', () => { for (const h of homes) fs.rmSync(h, { recursive: true, force: true }); });

export class NftSession {
  private readonly signal = new SharedArrayBuffer(4);
  private readonly result = new SharedArrayBuffer(RESULT_BYTES);
  private readonly flag = new Int32Array(this.signal);
  private home: string | null = null;
  private worker: Worker | null = null;
  private seq = 0;
  private mode: 'unknown' | 'session' | 'one-shot' = 'unknown';

  /** `onOneShot(reason)` is told once when this nft has no usable `nft -i` (a build without its CLI). */
  constructor(private readonly timeoutMs = 30_000, private readonly onOneShot: (reason: string) => void = () => {}) {}

  /** Applies a batch of element adds/deletes as one transaction; throws with nft's message. */
  apply(batch: string): void {
    const line = batch.split('\n').map((l) => l.trim()).filter(Boolean).join('; ');
    if (line === '') return;
    if (this.mode === 'unknown') this.mode = this.probe();
    if (this.mode === 'one-shot') return applyBatch(batch);
    this.send(line);
  }

  private probe(): 'session' | 'one-shot' {
    try {
      this.send('', Math.min(this.timeoutMs, 5000));
      return 'session';
    } catch (err) {
      void this.worker?.terminate();
      this.worker = null;
      this.onOneShot(err instanceof Error ? err.message : String(err));
      return 'one-shot';
    }
  }

  private send(line: string, timeoutMs = this.timeoutMs): void {
    this.worker ??= this.startWorker();
    Atomics.store(this.flag, 0, 0);
    this.worker.postMessage({ seq: ++this.seq, line, timeoutMs });
    if (Atomics.wait(this.flag, 0, 0, timeoutMs + 5000) === 'timed-out') {
      void this.worker.terminate();
      this.worker = null;
      throw new CommandError('nft', ['-i'], 'nft: the session did not answer', null);
    }
    const n = new DataView(this.result).getUint32(0);
    const a = JSON.parse(Buffer.from(this.result, 4, n).toString()) as SessionAnswer;
    if (!a.ok) throw new CommandError('nft', ['-i'], `nft failed: ${a.message}`, 1);
  }

  async close(): Promise<void> {
    const w = this.worker;
    this.worker = null;
    if (w) {
      w.postMessage('close');
      await new Promise((r) => setTimeout(r, 50));
      await w.terminate();
    }
    this.removeHome();
  }

  private removeHome(): void {
    if (this.home) {
      fs.rmSync(this.home, { recursive: true, force: true });
      homes.delete(this.home);
    }
    this.home = null;
  }

  private startWorker(): Worker {
    if (!this.home) {
      this.home = fs.mkdtempSync(path.join(os.tmpdir(), 'wgcp-nft-'));
      homes.add(this.home);
    }
    const w = new Worker(path.join(__dirname, 'session-worker.js'), { workerData: { signal: this.signal, result: this.result, home: this.home } });
    w.unref();
    return w;
  }
}
