// Runs tool calls in a worker thread while the caller waits synchronously (applies happen
// inside the API's database transaction). What this buys on the hot path: an `nft -e` batch
// counts as applied once nft echoes it, which it does only after the kernel committed it.
// nft's exit comes 10-20 ms later (releasing its netlink socket after element deletes waits
// for an RCU grace period); the worker lets that finish in the background.
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { CallOutcome, LaneOutcome, ToolCall } from './tool-worker';

export type { CallOutcome, LaneOutcome, ToolCall };

const RESULT_BYTES = 64 * 1024;

class LaneRunner {
  private readonly signal = new SharedArrayBuffer(4);
  private readonly result = new SharedArrayBuffer(RESULT_BYTES);
  private readonly flag = new Int32Array(this.signal);
  private readonly worker: Worker;

  constructor() {
    this.worker = new Worker(path.join(__dirname, 'tool-worker.js'), { workerData: { signal: this.signal, result: this.result } });
    this.worker.unref();
  }

  run(lanes: ToolCall[][]): LaneOutcome[] {
    Atomics.store(this.flag, 0, 0);
    this.worker.postMessage(lanes);
    const limit = Math.max(...lanes.flat().map((c) => c.timeoutMs), 0) * Math.max(...lanes.map((l) => l.length), 1) + 5000;
    if (Atomics.wait(this.flag, 0, 0, limit) === 'timed-out') throw new Error('kernel tools did not answer in time');
    const n = new DataView(this.result).getUint32(0);
    return JSON.parse(Buffer.from(this.result, 4, n).toString()) as LaneOutcome[];
  }

  async close(): Promise<void> { await this.worker.terminate(); }
}

let runner: LaneRunner | null = null;

/** Runs each lane's calls in order, the lanes side by side; returns how far each lane got. */
export function runLanes(lanes: ToolCall[][]): LaneOutcome[] {
  if (lanes.length === 0) return [];
  runner ??= new LaneRunner();
  return runner.run(lanes);
}

export async function closeLanes(): Promise<void> {
  const r = runner;
  runner = null;
  await r?.close();
}
