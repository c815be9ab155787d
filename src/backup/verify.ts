// Checks a staged backup database before it may replace anything: SQLite's own integrity
// check, wgcp's tables, a schema no newer than this program's; then migrates an older
// schema to this program's, as a start would. Every refusal is a BackupRefused.
import Database from 'better-sqlite3';
import { migrate, type DB } from '../store/db';
import { MIGRATIONS } from '../store/migrations';
import { backfillIpv6 } from '../store/ipv6-backfill';
import { BackupRefused, WGCP_APPLICATION_ID } from './format';
import { readMeta, type BackupMeta } from './snapshot';

export interface CheckedBackup {
  /** Schema version the backup was written with, and the one it holds now. */
  schemaFrom: number;
  schemaTo: number;
  servers: number;
  peers: number;
  meta: BackupMeta;
}

// Columns only wgcp's tables have: a database of another program is told apart by them.
const SIGNATURE: Record<string, string[]> = {
  servers: ['interface', 'listen_port', 'private_key', 'public_key', 'endpoint', 'mode'],
  peers: ['server_id', 'ip', 'public_key', 'preshared_key', 'allow_internet', 'data_limit_gb'],
};

function hasWgcpTables(db: DB): boolean {
  return Object.entries(SIGNATURE).every(([table, columns]) => {
    const have = new Set((db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]).map((c) => c.name));
    return columns.every((c) => have.has(c));
  });
}

function inspect(db: DB): { version: number } {
  const appId = db.pragma('application_id', { simple: true }) as number;
  if (appId !== WGCP_APPLICATION_ID && appId !== 0) throw new BackupRefused('not a wgcp backup: the SQLite database belongs to another application');
  const integrity = db.pragma('integrity_check', { simple: true }) as string;
  if (integrity !== 'ok') throw new BackupRefused(`the backup is corrupted: SQLite's integrity check says ${integrity}`);
  if (!hasWgcpTables(db)) throw new BackupRefused('not a wgcp backup: the SQLite database has no wgcp servers and peers tables');
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version < 1) throw new BackupRefused('not a wgcp backup: the database carries no wgcp schema version');
  if (version > MIGRATIONS.length) {
    throw new BackupRefused(`the backup's schema version ${version} is newer than this wgcp's (${MIGRATIONS.length}): upgrade wgcp first, then restore`);
  }
  if ((db.pragma('foreign_key_check') as unknown[]).length > 0) throw new BackupRefused('the backup is corrupted: rows refer to rows that do not exist');
  return { version };
}

/** Checks the staged copy at `file` and brings its schema to this program's; throws BackupRefused. */
export function checkAndMigrate(file: string): CheckedBackup {
  let db: DB;
  try {
    db = new Database(file, { fileMustExist: true });
  } catch (err) {
    throw new BackupRefused(`the backup cannot be opened as a database: ${(err as Error).message}`);
  }
  try {
    let version: number;
    try {
      ({ version } = inspect(db));
    } catch (err) {
      if (err instanceof BackupRefused) throw err;
      throw new BackupRefused(`the backup is corrupted: ${(err as Error).message}`);
    }
    db.pragma('journal_mode = DELETE');
    try {
      migrate(db, MIGRATIONS);
      backfillIpv6(db);
    } catch (err) {
      throw new BackupRefused(`the backup's schema version ${version} could not be brought to ${MIGRATIONS.length}: ${(err as Error).message}`);
    }
    const count = (table: string) => (db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
    return { schemaFrom: version, schemaTo: MIGRATIONS.length, servers: count('servers'), peers: count('peers'), meta: readMeta(db) };
  } finally {
    db.close();
  }
}
