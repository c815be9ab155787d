// The one place that runs kernel tools (ip, wg, nft): argument arrays, never a shell.
// Changes run as asynchronous children bounded by TOOL_TIMEOUT_MS and killed with SIGKILL
// past it (a stopped tool ignores SIGTERM), so the event loop never waits for a tool;
// only start-up's probe runs them synchronously (runSync), before anything listens.
import { spawn, spawnSync } from 'node:child_process';
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

/**
 * How long one kernel tool may take before it is killed and its change fails: well under
 * half of systemd's WatchdogSec=30, though the watchdog no longer waits on tools at all.
 */
export const TOOL_TIMEOUT_MS = 8_000;

/** Writes each secret to its own private file for the duration of fn (null: no file). */
export async function withSecretFiles<T>(secrets: (string | null)[], fn: (files: (string | null)[]) => Promise<T>): Promise<T> {
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
    return await fn(files);
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

/**
 * Runs a tool and resolves to its stdout; rejects with CommandError carrying the tool's own
 * message, or "timed out" after killing it.
 */
export async function run(tool: string, args: string[], opts: RunOptions = {}): Promise<string> {
  if (opts.secret !== undefined) {
    const { secret, ...rest } = opts;
    return withSecretFiles([secret], ([file]) => run(tool, args.map((a) => (a === SECRET_FILE ? file! : a)), rest));
  }
  const timeoutMs = opts.timeoutMs ?? TOOL_TIMEOUT_MS;
  return new Promise((resolve, reject) => {
    const child = spawn(tool, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let timedOut = false;
    const timer = setTimeout(() => { timedOut = true; child.kill('SIGKILL'); }, timeoutMs);
    child.stdout.setEncoding('utf8').on('data', (d: string) => { out += d; });
    child.stderr.setEncoding('utf8').on('data', (d: string) => { err += d; });
    // A tool that exits before reading its input (a refusal) breaks the pipe: its exit says why.
    child.stdin.on('error', () => {});
    child.on('error', (e: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(new CommandError(tool, args, `${tool}: ${e.code === 'ENOENT' ? 'not found' : e.message}`, null));
    });
    child.on('close', (status, signal) => {
      clearTimeout(timer);
      if (timedOut) return reject(new CommandError(tool, args, `${tool} ${args[0] ?? ''} did not answer within ${timeoutMs / 1000} s and was killed`, null));
      if (status !== 0) return reject(exitFailure(tool, args, status, signal, err || out));
      resolve(out);
    });
    child.stdin.end(opts.input ?? '');
  });
}

/** run() for start-up's probe alone, before the daemon serves anything. */
export function runSync(tool: string, args: string[], opts: Omit<RunOptions, 'secret'> = {}): string {
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

/** True when the tool ran and succeeded (start-up's probe). */
export function succeedsSync(tool: string, args: string[]): boolean {
  try {
    runSync(tool, args, { timeoutMs: 10_000 });
    return true;
  } catch {
    return false;
  }
}

/** True when the tool ran and succeeded. */
export async function succeeds(tool: string, args: string[], timeoutMs = TOOL_TIMEOUT_MS): Promise<boolean> {
  try {
    await run(tool, args, { timeoutMs });
    return true;
  } catch {
    return false;
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
