// Worker thread behind NftSession: owns one long-lived `nft -i`, sends it one batch a line
// (nft makes each line one transaction) followed by a line that cannot parse, whose error
// marks the end of that batch's answer on stderr. Whatever nft said before it is the batch's
// error; nothing means committed.
import { spawn, type ChildProcess } from 'node:child_process';
import { parentPort, workerData } from 'node:worker_threads';

export interface SessionRequest { seq: number; line: string; timeoutMs: number }
export interface SessionAnswer { ok: boolean; message: string }

const { signal, result, home } = workerData as { signal: SharedArrayBuffer; result: SharedArrayBuffer; home: string };
const flag = new Int32Array(signal);
const bytes = new Uint8Array(result);

let child: ChildProcess | null = null;
let stderr = '';
let pending: { seq: number; timer: NodeJS.Timeout } | null = null;

/** nft's message without its caret lines, each line cut short (a batch line can be long). */
function brief(text: string): string {
  return text.split('\n').filter((l) => l.trim() !== '' && !/^\s*\^+\s*$/.test(l)).slice(0, 6)
    .map((l) => (l.length > 300 ? `${l.slice(0, 300)}…` : l)).join('; ');
}

function answer(a: SessionAnswer): void {
  if (!pending) return;
  clearTimeout(pending.timer);
  pending = null;
  const encoded = Buffer.from(JSON.stringify(a));
  const n = Math.min(encoded.length, bytes.length - 4);
  new DataView(result).setUint32(0, n);
  bytes.set(encoded.subarray(0, n), 4);
  Atomics.store(flag, 0, 1);
  Atomics.notify(flag, 0);
}

function check(): void {
  if (!pending) return;
  // The end line's error is the end line itself and a line of carets under it.
  const m = new RegExp(`\\nwgcp-batch-end-${pending.seq}\\n *\\^+\\n`).exec(stderr);
  if (!m) return;
  const said = stderr.slice(0, Math.max(0, stderr.lastIndexOf('Error:', m.index))).trim();
  stderr = stderr.slice(m.index + m[0].length);
  answer({ ok: said === '', message: brief(said) });
}

function ensureChild(): ChildProcess {
  if (child) return child;
  // HOME points at a private folder: interactive nft keeps a history file there.
  const c = spawn('nft', ['-i'], { env: { ...process.env, HOME: home }, stdio: ['pipe', 'ignore', 'pipe'] });
  c.stderr!.on('data', (d: Buffer) => { stderr += d.toString(); check(); });
  c.stdin!.on('error', () => { /* the exit handler answers */ });
  // A child already given up on (killed after a timeout) answers nothing: a newer one may be at work.
  c.on('error', (err: NodeJS.ErrnoException) => {
    if (child !== c) return;
    child = null;
    answer({ ok: false, message: err.code === 'ENOENT' ? 'nft: not found' : `nft: ${err.message}` });
  });
  c.on('exit', (code, sig) => {
    if (child !== c) return;
    child = null;
    const said = brief(stderr);
    stderr = '';
    answer({ ok: false, message: `nft -i exited (${sig ?? `exit code ${code}`}): ${said || 'no message'}` });
  });
  child = c;
  return c;
}

parentPort?.on('message', (req: SessionRequest | 'close') => {
  if (req === 'close') {
    child?.stdin?.end();
    return;
  }
  const c = ensureChild();
  pending = {
    seq: req.seq,
    timer: setTimeout(() => {
      child = null;
      stderr = '';
      c.kill('SIGKILL');
      answer({ ok: false, message: `nft did not answer within ${req.timeoutMs / 1000} s` });
    }, req.timeoutMs),
  };
  // An empty line is the start-up probe: only the end line, to see that `nft -i` answers at all.
  c.stdin!.write(`${req.line ? `${req.line}\n` : ''}wgcp-batch-end-${req.seq}\n`);
});
