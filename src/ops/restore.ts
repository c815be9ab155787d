// Restore in two steps. Staging (the CLI): the file is checked, decrypted, checked again as
// a wgcp database and migrated, into a private copy in the data folder; a refusal leaves
// everything as it was. Applying (the CLI when no daemon runs, else the daemon during its
// SIGHUP reload, while nothing holds the database): the current database is kept as
// wgcp.db.before-restore-<time>, then SQLite's backup API writes the staged state over the
// live file in one transaction, and the state files follow.
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { DB_FILE } from '../store/db';
import { writeSecretFile } from '../first-key';
import { SALT_FILE } from '../device/server-salt';
import { decryptFile } from '../backup/cipher';
import { BackupRefused, backupKind, checkSqliteSize } from '../backup/format';
import { onlineCopy, privateTempFile, readMeta, stripMeta } from '../backup/snapshot';
import { checkAndMigrate, type CheckedBackup } from '../backup/verify';
import { discardStaged, writeRestoreOwner } from '../backup/restore-owner';

/** The checked copy waiting to be applied. */
export const PENDING_FILE = `${DB_FILE}.restore-pending`;
/** What the last apply did, for the CLI that asked a running daemon to do it. */
export const RESULT_FILE = 'restore-result.json';

export interface RestoreResult {
  ok: boolean;
  at: string;
  /** The kept database, or null when there was none. */
  before: string | null;
  /** State files written from the backup. */
  files: string[];
  error?: string;
}

function readHead(file: string): { head: Buffer; size: number } {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (err) {
    throw new BackupRefused(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  try {
    const size = fs.fstatSync(fd).size;
    const head = Buffer.alloc(Math.min(size, 100));
    fs.readSync(fd, head, 0, head.length, 0);
    return { head, size };
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Checks `file` and stages it as PENDING_FILE in `dataDir`. Throws BackupRefused (nothing
 * changed) for an empty, foreign, truncated, corrupted or newer file or a wrong passphrase.
 */
export async function stageRestore(dataDir: string, file: string, passphrase: string | null): Promise<CheckedBackup> {
  const { head, size } = readHead(file);
  if (size === 0) throw new BackupRefused('not a wgcp backup: the file is empty');
  const kind = backupKind(head);
  if (kind === 'foreign') throw new BackupRefused('not a wgcp backup: the file is neither a wgcp backup database nor an encrypted wgcp backup');
  if (kind === 'encrypted' && passphrase === null) throw new BackupRefused('the backup is encrypted: give its passphrase with --passphrase-file');
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const tmp = privateTempFile(dataDir, 'restore');
  try {
    if (kind === 'encrypted') {
      await decryptFile(file, passphrase!, tmp);
    } else {
      checkSqliteSize(head, size);
      fs.copyFileSync(file, tmp);
      fs.chmodSync(tmp, 0o600);
    }
    const checked = checkAndMigrate(tmp);
    // The owner first: a copy found without a live owner is abandoned (backup/restore-owner.ts).
    writeRestoreOwner(dataDir, false);
    fs.renameSync(tmp, path.join(dataDir, PENDING_FILE));
    return checked;
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}

/**
 * True when a backup's state files carry a device salt other than the data folder's: the
 * daemon derives device keys from the salt it read at start, so it must start again to take
 * another (a backup from another router). The same router's backup restores live.
 */
export function saltOfCopyDiffers(dataDir: string, files: Map<string, string>): boolean {
  const theirs = files.get(SALT_FILE);
  if (theirs === undefined) return false;
  try {
    return fs.readFileSync(path.join(dataDir, SALT_FILE), 'utf8') !== theirs;
  } catch {
    return true;
  }
}

/** saltOfCopyDiffers for the staged copy. */
export function stagedSaltDiffers(dataDir: string): boolean {
  const db = new Database(path.join(dataDir, PENDING_FILE), { readonly: true, fileMustExist: true });
  try {
    return saltOfCopyDiffers(dataDir, readMeta(db).files);
  } finally {
    db.close();
  }
}

export const hasPendingRestore = (dataDir: string): boolean => fs.existsSync(path.join(dataDir, PENDING_FILE));

/** 2026-01-22T10-15-00.123Z: a time that sorts and is safe in a file name. */
export const fileStamp = (now: Date): string => now.toISOString().replace(/:/g, '-');

/** Drops the backup's own table and matches the live database's page size (WAL cannot take another). */
function prepareStaged(pending: string, live: string | null): Map<string, string> {
  const db = new Database(pending, { fileMustExist: true });
  try {
    const files = readMeta(db).files;
    stripMeta(db);
    if (live) {
      const livePage = readPageSize(live);
      if (livePage !== null && livePage !== db.pragma('page_size', { simple: true })) {
        db.pragma(`page_size = ${livePage}`);
        db.exec('VACUUM');
      }
    }
    return files;
  } finally {
    db.close();
  }
}

function readPageSize(file: string): number | null {
  const head = Buffer.alloc(18);
  const fd = fs.openSync(file, 'r');
  try {
    if (fs.readSync(fd, head, 0, 18, 0) < 18) return null;
  } finally {
    fs.closeSync(fd);
  }
  const raw = head.readUInt16BE(16);
  return raw === 1 ? 65536 : raw;
}

function keepAside(file: string, stamp: string): void {
  const kept = `${file}.before-restore-${stamp}`;
  fs.copyFileSync(file, kept);
  fs.chmodSync(kept, 0o600);
}

/** Writes a state file of the backup; a differing old one is kept as <name>.before-restore-<stamp>. */
export function writeStateFile(dataDir: string, name: string, content: string, stamp: string): void {
  const file = path.join(dataDir, name);
  if (fs.existsSync(file) && fs.readFileSync(file, 'utf8') !== content) keepAside(file, stamp);
  writeSecretFile(file, content);
}

/**
 * Applies a staged restore, if there is one, to the database of `dataDir` while nothing
 * else writes it (no daemon, or the daemon between its stop and its start). Records what
 * happened in RESULT_FILE; throws when it failed, after removing the staged copy (the live
 * database is then as it was: the replacement is one SQLite transaction).
 */
export async function applyPendingRestore(dataDir: string, now: Date): Promise<RestoreResult | null> {
  const pending = path.join(dataDir, PENDING_FILE);
  if (!fs.existsSync(pending)) return null;
  const live = path.join(dataDir, DB_FILE);
  const stamp = fileStamp(now);
  const result: RestoreResult = { ok: false, at: now.toISOString(), before: null, files: [] };
  try {
    const liveExists = fs.existsSync(live) && fs.statSync(live).size > 0;
    const files = prepareStaged(pending, liveExists ? live : null);
    if (liveExists) {
      result.before = `${live}.before-restore-${stamp}`;
      fs.closeSync(fs.openSync(result.before, 'wx', 0o600));
      const current = new Database(live, { fileMustExist: true });
      try {
        current.pragma('busy_timeout = 5000');
        await onlineCopy(current, result.before);
      } finally {
        current.close();
      }
    } else {
      fs.closeSync(fs.openSync(live, 'a', 0o600));
    }
    const source = new Database(pending, { readonly: true, fileMustExist: true });
    try {
      await source.backup(live, { progress: () => 0x7fffffff });
    } finally {
      source.close();
    }
    fs.chmodSync(live, 0o600);
    for (const [name, content] of files) {
      writeStateFile(dataDir, name, content, stamp);
      result.files.push(name);
    }
    result.ok = true;
    return result;
  } catch (err) {
    result.error = err instanceof Error ? err.message : String(err);
    throw err;
  } finally {
    discardStaged(dataDir, PENDING_FILE);
    writeSecretFile(path.join(dataDir, RESULT_FILE), JSON.stringify(result) + '\n');
  }
}

export function readRestoreResult(dataDir: string): RestoreResult | null {
  try {
    return JSON.parse(fs.readFileSync(path.join(dataDir, RESULT_FILE), 'utf8')) as RestoreResult;
  } catch {
    return null;
  }
}

export function forgetRestoreResult(dataDir: string): void {
  fs.rmSync(path.join(dataDir, RESULT_FILE), { force: true });
}
