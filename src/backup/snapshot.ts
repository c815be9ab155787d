// A backup's contents: SQLite's online backup of the live database (consistent while the
// daemon writes; never a file copy), stamped as wgcp's, with the data folder's state files
// (the device API salt, the first API key) carried in a table of the copy.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { DB } from '../store/db';
import { VERSION } from '../version';
import { WGCP_APPLICATION_ID } from './format';

/** The table a backup copy carries its facts and state files in; it never reaches a live database. */
export const META_TABLE = 'wgcp_backup';
/** Files of the data folder that belong to the state: without the salt, devices' keys change. */
export const STATE_FILES = ['server-salt', 'api-key'] as const;
const FILE_PREFIX = 'file:';

export interface BackupMeta {
  takenAt: string | null;
  version: string | null;
  /** State files by name, as they were in the source's data folder. */
  files: Map<string, string>;
}

/** A new empty file of mode 0600 in `dir`, for a copy that holds secrets. */
export function privateTempFile(dir: string, label: string): string {
  const file = path.join(dir, `.${label}-${process.pid}-${crypto.randomBytes(4).toString('hex')}.tmp`);
  fs.closeSync(fs.openSync(file, 'wx', 0o600));
  return file;
}

/** Copies `source` with SQLite's backup API in one step, so the copy is one consistent state. */
export async function onlineCopy(source: DB, dest: string): Promise<void> {
  await source.backup(dest, { progress: () => 0x7fffffff });
  fs.chmodSync(dest, 0o600);
  const copy = new Database(dest);
  try {
    copy.pragma('journal_mode = DELETE');
  } finally {
    copy.close();
  }
}

/** Takes the snapshot of `source` into a private temporary file of `dataDir`; the caller removes it. */
export async function takeSnapshot(source: DB, dataDir: string, now: Date): Promise<string> {
  const tmp = privateTempFile(dataDir, 'backup');
  try {
    await onlineCopy(source, tmp);
    const copy = new Database(tmp);
    try {
      copy.pragma(`application_id = ${WGCP_APPLICATION_ID}`);
      copy.exec(`CREATE TABLE ${META_TABLE} (name TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID`);
      const put = copy.prepare(`INSERT INTO ${META_TABLE} (name, value) VALUES (?, ?)`);
      put.run('takenAt', now.toISOString());
      put.run('version', VERSION);
      for (const name of STATE_FILES) {
        const content = readIfPresent(path.join(dataDir, name));
        if (content !== null) put.run(FILE_PREFIX + name, content);
      }
    } finally {
      copy.close();
    }
    return tmp;
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw err;
  }
}

function readIfPresent(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/** Reads the facts of a backup copy, or empty ones for a plain copy of wgcp.db (no table). */
export function readMeta(db: DB): BackupMeta {
  const meta: BackupMeta = { takenAt: null, version: null, files: new Map() };
  const exists = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(META_TABLE);
  if (!exists) return meta;
  for (const row of db.prepare(`SELECT name, value FROM ${META_TABLE}`).all() as { name: string; value: string }[]) {
    if (row.name === 'takenAt') meta.takenAt = row.value;
    else if (row.name === 'version') meta.version = row.value;
    else if (row.name.startsWith(FILE_PREFIX) && (STATE_FILES as readonly string[]).includes(row.name.slice(FILE_PREFIX.length))) {
      meta.files.set(row.name.slice(FILE_PREFIX.length), row.value);
    }
  }
  return meta;
}

/** Makes a checked backup copy a plain wgcp database again: no meta table, no application id. */
export function stripMeta(db: DB): void {
  db.exec(`DROP TABLE IF EXISTS ${META_TABLE}`);
  db.pragma('application_id = 0');
}
