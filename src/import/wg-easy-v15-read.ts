// Reads a wg-easy v15 database (its drizzle schema: interfaces_table, user_configs_table,
// hooks_table, clients_table, one_time_links_table, users_table) read-only, from its file or
// from the bytes an API client sent. Rows come out as wg-easy stores them.
import Database from 'better-sqlite3';
import { SQLITE_MAGIC } from '../backup/format';
import { badFile } from './plan';

export type Row = Record<string, unknown>;

export interface WgEasyRows {
  interfaces: Row[];
  userConfigs: Row[];
  hooks: Row[];
  clients: Row[];
  oneTimeLinks: number;
  users: number;
}

export const isSqlite = (head: Buffer): boolean => head.length >= SQLITE_MAGIC.length && head.subarray(0, SQLITE_MAGIC.length).equals(SQLITE_MAGIC);

function open(source: string | Buffer): Database.Database {
  if (typeof source === 'string') return new Database(source, { readonly: true, fileMustExist: true });
  // Bytes of a WAL-mode file open only as a rollback-journal one (the same pages).
  const bytes = Buffer.from(source);
  if (bytes.length > 19 && bytes[18] === 2) { bytes[18] = 1; bytes[19] = 1; }
  return new Database(bytes, { readonly: true });
}

export function readWgEasyDb(source: string | Buffer): WgEasyRows {
  let db: Database.Database;
  try {
    db = open(source);
  } catch (err) {
    throw badFile(`cannot be opened as a SQLite database: ${(err as Error).message}`);
  }
  try {
    const tables = new Set((db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((t) => t.name));
    if (!tables.has('interfaces_table') || !tables.has('clients_table')) throw badFile('is not a wg-easy v15 database: it has no interfaces_table and clients_table');
    const all = (table: string, order: string): Row[] => (tables.has(table) ? db.prepare(`SELECT * FROM ${table} ORDER BY ${order}`).all() as Row[] : []);
    const count = (table: string): number => (tables.has(table) ? (db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n : 0);
    return {
      interfaces: all('interfaces_table', 'name'),
      userConfigs: all('user_configs_table', 'id'),
      hooks: all('hooks_table', 'id'),
      clients: all('clients_table', 'id'),
      oneTimeLinks: count('one_time_links_table'),
      users: count('users_table'),
    };
  } catch (err) {
    if ((err as { status?: number }).status === 400) throw err;
    throw badFile(`cannot be read as a wg-easy database: ${(err as Error).message}`);
  } finally {
    db.close();
  }
}
