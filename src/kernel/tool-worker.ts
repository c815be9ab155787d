// Worker thread behind runLanes(): runs lanes of tool calls (lanes side by side, calls in a
// lane one after another) with async child processes, and hands the outcome back through
// shared memory while the main thread waits on it. See lanes.ts for why.
import { spawn } from 'node:child_process';
import { parentPort, workerData } from 'node:worker_threads';

export interface ToolCall {
  tool: string;
  args: string[];
  input?: string;
  /** Success as soon as the tool prints on stdout (`nft -e` echoes only what it committed). */
  doneOnOutput?: boolean;
  timeoutMs: number;
}

export interface CallOutcome { ok: boolean; message: string }
export interface LaneOutcome { done: number; failure: CallOutcome | null }

function runCall(call: ToolCall): Promise<CallOutcome> {
  return new Promise((resolve) => {
    let settled = false;
    let stderr = '';
    const settle = (o: CallOutcome) => { if (!settled) { settled = true; clearTimeout(timer); resolve(o); } };
    const child = spawn(call.tool, call.args, { stdio: ['pipe', 'pipe', 'pipe'] });
    const timer = setTimeout(() => { child.kill('SIGKILL'); settle({ ok: false, message: `${call.tool}: timed out` }); }, call.timeoutMs);
    child.stdout.on('data', () => { if (call.doneOnOutput) settle({ ok: true, message: '' }); });
    child.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
    child.on('error', (err: NodeJS.ErrnoException) => settle({ ok: false, message: `${call.tool}: ${err.code === 'ENOENT' ? 'not found' : err.message}` }));
    child.on('close', (code, signal) => {
      if (code === 0) return settle({ ok: true, message: '' });
      const said = stderr.trim().split('\n').filter(Boolean).slice(0, 6).join('; ');
      settle({ ok: false, message: `${call.tool} ${call.args[0] ?? ''} failed (${signal ? `killed by ${signal}` : `exit code ${code}`}): ${said || 'no message'}` });
    });
    child.stdin.on('error', () => { /* the tool may exit before reading its input */ });
    child.stdin.end(call.input ?? '');
  });
}

async function runLane(lane: ToolCall[]): Promise<LaneOutcome> {
  for (let i = 0; i < lane.length; i++) {
    const o = await runCall(lane[i]);
    if (!o.ok) return { done: i, failure: o };
  }
  return { done: lane.length, failure: null };
}

if (parentPort) {
  const { signal, result } = workerData as { signal: SharedArrayBuffer; result: SharedArrayBuffer };
  const flag = new Int32Array(signal);
  const bytes = new Uint8Array(result);
  parentPort.on('message', async (lanes: ToolCall[][]) => {
    const outcomes = await Promise.all(lanes.map(runLane));
    const encoded = Buffer.from(JSON.stringify(outcomes));
    const n = Math.min(encoded.length, bytes.length - 4);
    new DataView(result).setUint32(0, n);
    bytes.set(encoded.subarray(0, n), 4);
    Atomics.store(flag, 0, 1);
    Atomics.notify(flag, 0);
  });
}
