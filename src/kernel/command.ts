// The one place that runs kernel tools (ip, wg, nft): argument arrays, never a shell,
// synchronously because applies happen inside the API's database transaction; reads that
// change nothing (the usage cycle's counters) may run without holding the event loop.
import { execFile, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Stands in an argument list for the file that holds `secret` (keys). Node gives children a
 * socket, not a pipe, as stdin, and `wg` cannot open /dev/stdin on a socket; so secrets go
 * through a 0600 file in a 0700 folder on tmpfs that is removed right after the call.
 */
export const SECRET_FILE = '{secret-file}';
let secretDir: string | null = null;
let exitHookSet = false;

/** Writes each secret to its own private file for the duration of fn (null: no file). */
export function withSecretFiles<T>(secrets: (string | null)[], fn: (files: (string | null)[]) => T): T {
  if (!secretDir || !fs.existsSync(secretDir)) {
    secretDir = fs.mkdtempSync(path.join(fs.existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir(), 'wgcp-'));
    if (!exitHookSet) process.once('exit', () => removeSecretDir());
    exitHookSet = true;
  }
  const dir = secretDir;
  const files = secrets.map((s) => {
    if (s === null) return null;
    const file = path.join(dir, crypto.randomBytes(8).toString('hex'));
    fs.writeFileSync(file, s, { mode: 0o600 });
    return file;
  });
  try {
    return fn(files);
  } finally {
    for (const f of files) if (f) fs.rmSync(f, { force: true });
  }
}

export class CommandError extends Error {
  constructor(readonly tool: string, readonly args: string[], message: string, readonly status: number | null) {
    super(message);
  }
}

export interface RunOptions {
  /** Written to the tool's stdin (nft batches). */
  input?: string;
  /** Written to a private file whose path replaces SECRET_FILE in the arguments. */
  secret?: string;
  timeoutMs?: number;
}

/** Removes the private folder of secret files (they are deleted after each call already). */
export function removeSecretDir(): void {
  if (secretDir) fs.rmSync(secretDir, { recursive: true, force: true });
  secretDir = null;
}

/** Runs a tool and returns its stdout; throws CommandError carrying the tool's own message. */
export function run(tool: string, args: string[], opts: RunOptions = {}): string {
  if (opts.secret !== undefined) {
    const { secret, ...rest } = opts;
    return withSecretFiles([secret], ([file]) => run(tool, args.map((a) => (a === SECRET_FILE ? file! : a)), rest));
  }
  const res = spawnSync(tool, args, {
    input: opts.input ?? '',
    encoding: 'utf8',
    timeout: opts.timeoutMs ?? 30_000,
    maxBuffer: 256 * 1024 * 1024,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const code = (res.error as NodeJS.ErrnoException | undefined)?.code;
  // A tool that exits before reading its input (a refusal) leaves EPIPE: its exit and stderr say why.
  const exitedEarly = code === 'EPIPE' && typeof res.status === 'number' && res.status !== 0;
  if (res.error && !exitedEarly) {
    const why = code === 'ENOENT' ? 'not found' : code === 'ETIMEDOUT' ? 'timed out' : res.error.message;
    throw new CommandError(tool, args, `${tool}: ${why}`, null);
  }
  if (res.status !== 0) throw exitFailure(tool, args, res.status, res.signal, res.stderr || res.stdout);
  return res.stdout;
}

function exitFailure(tool: string, args: string[], status: number | null, signal: string | null, said: string): CommandError {
  const first = (said || '').trim().split('\n').filter(Boolean).slice(0, 6).join('; ');
  const how = signal ? `killed by ${signal}` : `exit code ${status}`;
  return new CommandError(tool, args, `${tool} ${args[0] ?? ''} failed (${how}): ${first || 'no message'}`, status);
}

/** run() for a read that changes nothing: the daemon serves requests while the tool works. */
export function runAsync(tool: string, args: string[], timeoutMs = 30_000): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(tool, args, { encoding: 'utf8', timeout: timeoutMs, maxBuffer: 256 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (!err) return resolve(stdout);
      const e = err as NodeJS.ErrnoException & { code?: string | number; killed?: boolean; signal?: NodeJS.Signals | null };
      if (typeof e.code === 'number') return reject(exitFailure(tool, args, e.code, null, stderr || stdout));
      if (e.killed || e.signal) return reject(new CommandError(tool, args, e.killed ? `${tool}: timed out` : `${tool} ${args[0] ?? ''} failed (killed by ${e.signal})`, null));
      reject(new CommandError(tool, args, `${tool}: ${e.code === 'ENOENT' ? 'not found' : e.message}`, null));
    });
  });
}

/** True when the tool ran and succeeded. */
export function succeeds(tool: string, args: string[]): boolean {
  try {
    run(tool, args, { timeoutMs: 10_000 });
    return true;
  } catch {
    return false;
  }
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));
/** Blocks the thread briefly; used only while waiting for a wireguard-go child to come up. */
export function sleepSync(ms: number): void { Atomics.wait(sleeper, 0, 0, ms); }
