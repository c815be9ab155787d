// Whether the data folder can take writes, for /healthz: a full disk made every change
// answer 500 while /healthz said `ok`. Two signs, either one makes the daemon `degraded`:
// the last change failed to commit for the storage's sake (SQLITE_FULL, SQLITE_IOERR; kept
// until a change commits again), or the data folder's file system has less than
// LOW_SPACE_BYTES left (asked of the kernel at each /healthz: one statfs, no I/O).
import fs from 'node:fs';

export const LOW_SPACE_BYTES = 1024 * 1024;

/** SQLite's codes for a write the storage refused (better-sqlite3 puts them on `err.code`). */
export function isStorageFailure(err: unknown): string | null {
  const code = (err as { code?: unknown })?.code;
  return typeof code === 'string' && /^SQLITE_(FULL|IOERR)/.test(code) ? code : null;
}

export interface WriteFailure { at: string; code: string; message: string }

/** Bytes an unprivileged writer may still use in `dir`'s file system, or null when it cannot be asked. */
export function freeBytes(dir: string): number | null {
  try {
    const s = fs.statfsSync(dir);
    return s.bavail * s.bsize;
  } catch {
    return null;
  }
}

/** The reasons /healthz gives for the storage, or none. */
export function storageReasons(dataDir: string, failure: WriteFailure | null): string[] {
  const reasons: string[] = [];
  const free = freeBytes(dataDir);
  if (free !== null && free < LOW_SPACE_BYTES) reasons.push(`the data folder's disk is full: ${Math.floor(free / 1024)} KiB free on ${dataDir}`);
  if (failure) reasons.push(`changes cannot be stored: the last write failed with ${failure.code} at ${failure.at} (${failure.message})`);
  return reasons;
}
