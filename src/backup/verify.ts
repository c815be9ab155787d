// Checks a staged backup database before it may replace anything: SQLite's own integrity
// check, wgcp's tables, a schema no newer than this program's; then migrates an older
// schema to this program's, as a start would. Every refusal is a BackupRefused.
import Database from 'better-sqlite3';
import { migrate, type DB } from '../store/db';
import { reachOf } from '../store/peers';
import { MIGRATIONS } from '../store/migrations';
import { listOf, routesOf, splitList } from '../wg/client-options';
import { backfillIpv6 } from '../store/ipv6-backfill';
import { BackupRefused, WGCP_APPLICATION_ID } from './format';
import { readMeta, type BackupMeta } from './snapshot';
import { EMAIL, PEER_VALUE_RULES, SERVER_VALUE_RULES, firstBadValue, quoted } from '../ops/value-rules';

const LINE_BREAKING = /[\p{Cc}\p{Zl}\p{Zp}]/u;
const restoredName = (v: unknown): string | null => (typeof v !== 'string' ? 'must be text' : LINE_BREAKING.test(v) ? 'must not hold a control character or a line separator' : null);
import { HOSTNAME } from '../wg/hostname';

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

// The values a backup's rows carry reach every client's .conf, `ip`/`wg`/`nft`/`tc`, mail
// headers and logs, as the API's would: they keep the same rules (ops/value-rules.ts). A
// backup edited by hand, or made by an older wgcp that let such a value in, is refused whole.
// Names are held to less than the name rule: a backup of last year may hold a name today's
// rule refuses (an emoji with U+FE0F) but harmless where it goes; a name that breaks a line
// (a log line, a mail header) is refused.
const SERVER_ROWS = `SELECT id, name, endpoint, interface, address, address6, listen_port AS listenPort, dns, mtu,
  client_allowed_ips AS clientAllowedIPs, client_keepalive AS persistentKeepalive, lan_access AS lanAccess,
  private_key AS privateKey, public_key AS publicKey FROM servers`;
const PEER_ROWS = `SELECT id, name, email, ip, ip6, public_key AS publicKey, private_key AS privateKey, preshared_key AS presharedKey,
  networks, lan_access AS lanAccess, reachable_from AS reachableFrom,
  client_dns AS dns, client_allowed_ips AS clientAllowedIPs, client_keepalive AS persistentKeepalive, client_mtu AS mtu FROM peers`;
/** The client options are stored as text (wg/client-options.ts) and judged as the API takes them. */
const asTaken = (row: Record<string, unknown>): Record<string, unknown> => ({
  ...row,
  ...(typeof row.clientAllowedIPs === 'string' ? { clientAllowedIPs: routesOf(row.clientAllowedIPs) } : {}),
  ...(typeof row.dns === 'string' && 'presharedKey' in row ? { dns: listOf(row.dns) } : {}),
  ...(typeof row.networks === 'string' ? { networks: splitList(row.networks) } : {}),
  // lanAccess and reachableFrom become packet-filter elements: judged as the API takes them.
  ...(typeof row.lanAccess === 'string' ? { lanAccess: reachOf(row.lanAccess) } : {}),
  ...(typeof row.reachableFrom === 'string' ? { reachableFrom: reachOf(row.reachableFrom) } : {}),
});
const NAMED_ROWS = [['webhooks', 'name'], ['credentials', 'name'], ['smtp_settings', 'from_name']] as const;

function checkValues(db: DB): void {
  const refuse = (what: string, field: string, value: unknown, why: string) => {
    throw new BackupRefused(`the backup's ${what} has a ${field} that wgcp refuses: ${quoted(value)} ${why}; nothing was restored`);
  };
  for (const [table, sql, what] of [[SERVER_VALUE_RULES, SERVER_ROWS, 'server'], [PEER_VALUE_RULES, PEER_ROWS, 'peer']] as const) {
    const rules = { ...table, name: restoredName };
    for (const stored of db.prepare(sql).iterate() as Iterable<Record<string, unknown>>) {
      const row = asTaken(stored);
      const bad = firstBadValue(rules, row);
      if (bad) refuse(`${what} ${row.id}`, bad.field, row[bad.field], bad.message);
    }
  }
  for (const [table, column] of NAMED_ROWS) {
    for (const row of db.prepare(`SELECT rowid AS id, ${column} AS v FROM ${table}`).iterate() as Iterable<{ id: number; v: unknown }>) {
      const problem = restoredName(row.v);
      if (problem) refuse(`${table} row ${row.id}`, column, row.v, problem);
    }
  }
  const smtp = db.prepare('SELECT server, from_email AS fromEmail FROM smtp_settings').get() as { server: string; fromEmail: string } | undefined;
  if (smtp?.server && !HOSTNAME.test(smtp.server) && !/^[0-9a-fA-F:.]+$/.test(smtp.server)) refuse('mail settings', 'server', smtp.server, 'must be a host name or IP address');
  if (smtp?.fromEmail && !EMAIL.test(smtp.fromEmail)) refuse('mail settings', 'from_email', smtp.fromEmail, 'must be an e-mail address');
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
    checkValues(db);
    const count = (table: string) => (db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
    return { schemaFrom: version, schemaTo: MIGRATIONS.length, servers: count('servers'), peers: count('peers'), meta: readMeta(db) };
  } finally {
    db.close();
  }
}
