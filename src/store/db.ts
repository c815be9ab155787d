// Opens the one SQLite file: WAL, foreign keys, a busy timeout for the CLI writing beside
// the daemon, then brings the schema to the newest version inside one transaction.
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { MIGRATIONS } from './migrations';

export type DB = Database.Database;

export const DB_FILE = 'wgcp.db';
/** WAL pages written before a checkpoint copies them into the database file. */
export const WAL_CHECKPOINT_PAGES = 4000;

export function openDatabase(dataDir: string, migrations: readonly string[] = MIGRATIONS): DB {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = path.join(dataDir, DB_FILE);
  // The file holds private keys and the SMTP password: owner-only from its first byte.
  if (!fs.existsSync(file)) fs.closeSync(fs.openSync(file, 'a', 0o600));
  fs.chmodSync(file, 0o600);
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  db.pragma('synchronous = NORMAL');
  // better-sqlite3 builds SQLite with a 16 MB page cache; at 10,000 peers it would hold the
  // whole 6 MB file, at 65,000 peers 16 MB. 2 MB keeps the hot pages, the rest comes from the
  // kernel's file cache (a full scan of 10,000 peers costs about 1 ms more; bench/RESULTS.md).
  db.pragma('cache_size = -2048');
  // Flash: a checkpoint copies each page changed since the last one into the file once, so
  // the rarer it is, the fewer copies (every usage cycle rewrites the same ~100 pages). 4,000
  // pages (16 MB of WAL) is a checkpoint about every half hour at 10,000 busy peers; the WAL
  // file is cut back to 16 MB after one (docs/operations.md, the flash budget).
  db.pragma(`wal_autocheckpoint = ${WAL_CHECKPOINT_PAGES}`);
  db.pragma(`journal_size_limit = ${16 * 1024 * 1024}`);
  migrate(db, migrations);
  return db;
}

export function migrate(db: DB, migrations: readonly string[]): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > migrations.length) {
    throw new Error(`database schema version ${current} is newer than this wgcp (${migrations.length}); refusing to start`);
  }
  if (current === migrations.length) return;
  db.transaction(() => {
    for (let v = current; v < migrations.length; v++) db.exec(migrations[v]);
    db.pragma(`user_version = ${migrations.length}`);
  }).immediate();
}

/**
 * The id the next insert into an AUTOINCREMENT table would get (ids are never reused, not
 * even a deleted last one's), so that a change can be planned with it before its commit.
 */
export function nextIdOf(db: DB, table: 'servers' | 'peers' | 'port_forwards'): () => number {
  const stmt = db.prepare(`SELECT MAX(COALESCE((SELECT seq FROM sqlite_sequence WHERE name = '${table}'), 0),
    COALESCE((SELECT MAX(id) FROM ${table}), 0))`).pluck();
  return () => (stmt.get() as number) + 1;
}
