// The change journal of a standby pair (docs/ha.md): where this router stands (epoch,
// sequence), the first sequence of each epoch, and the rows each change wrote to the
// replicated tables. The rows are caught by TEMP triggers on the daemon's own connection
// (made at start from the live schema, so a table or column added later is caught too):
// they write only while the change runner's commit has the journal open (`wgcp_ha_on()`),
// so records written outside the runner (heartbeats, sessions, history) and the CLI's own
// connection never add to it.
//
// Interface (stable; ha-failover builds on it):
//   HaTable.state() -> { epoch, seq }            the last change this router holds
//   HaTable.epochs() -> { epoch, startSeq }[]    the first sequence of each epoch
//   HaTable.entriesAfter(seq, limit)             journal rows of the changes after seq
//   HaTable.endpoints()                          the primary's last-known peer endpoints
import Database from 'better-sqlite3';
import type { DB } from './db';

/** Tables each router keeps for itself: never journaled, never applied from the partner. */
export const LOCAL_TABLES: ReadonlySet<string> = new Set([
  // The journal and where this router stands in it.
  'ha_state', 'ha_epochs', 'ha_journal',
  // Sign-in sessions and each router's own bookkeeping (derived counters, repairs, pruning).
  'sessions', 'job_state', 'metric_counters', 'kernel_repairs', 'audit_prune', 'device_seen',
  // Telemetry written outside the change runner: each router's own traffic history.
  'traffic_5m', 'traffic_1h', 'traffic_1d',
  // Notices to send and their log: only the router that acts sends (a standby never sends twice).
  'webhook_outbox', 'webhook_deliveries', 'mail_outbox',
]);

/**
 * Updates journaled only when one of these columns moved: peer_usage's baselines are the
 * primary's own kernel counters (a standby's kernel counts from zero), rewritten for every
 * peer each usage cycle; its total is what the standby needs. Any other table: an update
 * that changed some column.
 */
const UPDATES_THAT_MATTER: Readonly<Record<string, readonly string[]>> = { peer_usage: ['usage_bytes'] };

/**
 * Updates a usage cycle may leave for a later one (the table and its key column): the usage
 * totals of every busy peer move every cycle, and journaling them all each minute was most
 * of what a pair wrote. Between two replicated cycles the triggers only name the row
 * (wgcp_ha_defer); the next replicated cycle journals the rows named as they then stand.
 */
export const DEFERRABLE: Readonly<Record<string, string>> = { peer_usage: 'peer_id' };

export interface HaPosition { epoch: number; seq: number }
/** An epoch of this router's line: its first sequence and the promotion that began it (node: random, '' for the first). */
export interface EpochStart { epoch: number; startSeq: number; node: string }
export interface JournalEntry { seq: number; epoch: number; tbl: string; op: 'I' | 'U' | 'D'; pk: Record<string, unknown>; row: Record<string, unknown> | null }
export interface PeerEndpoint { peerId: number; endpoint: string; at: string }

const quote = (name: string): string => `"${name.replace(/"/g, '""')}"`;
const lit = (name: string): string => `'${name.replace(/'/g, "''")}'`;

/** A table as the journal sees it; `blobs`: columns declared BLOB, journaled as hex (JSON holds no bytes). */
interface TableShape { name: string; columns: string[]; pk: string[]; blobs: Set<string> }

/** The SQL of one journal row of table `t` from the row `ref` (NEW, OLD or an alias). */
function journalValues(t: TableShape, op: string, ref: string): string {
  const value = (c: string) => (t.blobs.has(c) ? `(CASE WHEN ${ref}.${quote(c)} IS NULL THEN NULL ELSE hex(${ref}.${quote(c)}) END)` : `${ref}.${quote(c)}`);
  const json = (cols: string[]) => `json_object(${cols.map((c) => `${lit(c)}, ${value(c)}`).join(', ')})`;
  return `wgcp_ha_seq(), wgcp_ha_epoch(), ${lit(t.name)}, '${op}', ${json(t.pk)}, ${json(t.columns)}`;
}

/** The live schema's tables that replicate, with their columns and primary key (rowid when none is declared). */
export function replicatedTables(db: DB): TableShape[] {
  const names = db.prepare("SELECT name FROM main.sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").pluck().all() as string[];
  return names.filter((n) => !LOCAL_TABLES.has(n)).map((name) => {
    const cols = db.prepare(`PRAGMA main.table_info(${quote(name)})`).all() as { name: string; pk: number; type: string }[];
    const pk = cols.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk).map((c) => c.name);
    return { name, columns: cols.map((c) => c.name), pk: pk.length ? pk : ['rowid'], blobs: new Set(cols.filter((c) => /BLOB/i.test(c.type)).map((c) => c.name)) };
  });
}

/** Where a snapshot (a backup file of the primary) stands in the journal. */
export interface SnapshotPosition extends HaPosition { epochs: EpochStart[] }

export function snapshotPosition(file: string): SnapshotPosition {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const at = db.prepare('SELECT epoch, seq FROM ha_state WHERE id = 1').get() as HaPosition;
    return { ...at, epochs: db.prepare('SELECT epoch, start_seq AS startSeq, node FROM ha_epochs ORDER BY epoch').all() as EpochStart[] };
  } finally {
    db.close();
  }
}

export class HaTable {
  /** The follower's statements by table, operation and columns: a batch of thousands of rows prepares each once. */
  private readonly applyStmts = new Map<string, Database.Statement>();
  private readonly stateStmt;
  private readonly entriesStmt;
  constructor(private readonly db: DB) {
    this.stateStmt = db.prepare('SELECT epoch, seq FROM ha_state WHERE id = 1');
    this.entriesStmt = db.prepare('SELECT seq, epoch, tbl, op, pk, row FROM ha_journal WHERE seq > ? AND seq <= ? ORDER BY id');
  }

  state(): HaPosition { return this.stateStmt.get() as HaPosition; }

  /** The schema version this router's database is at (the migrations it ran). */
  schemaVersion(): number { return this.db.pragma('user_version', { simple: true }) as number; }

  epochs(): EpochStart[] {
    return this.db.prepare('SELECT epoch, start_seq AS startSeq, node FROM ha_epochs ORDER BY epoch').all() as EpochStart[];
  }

  /** The epoch this router stands in, with its first sequence and node. */
  currentEpoch(): EpochStart {
    const epoch = this.state().epoch;
    return this.epochs().find((e) => e.epoch === epoch) ?? { epoch, startSeq: 1, node: '' };
  }

  /** The last sequence whose rows the journal no longer holds (pruned, or committed while alone): a follower behind it needs a snapshot. */
  prunedUpTo(): number { return this.db.prepare('SELECT pruned FROM ha_state WHERE id = 1').pluck().get() as number; }

  /** Journaled changes after `seq` (what a follower at `seq` does not hold yet). */
  changesAfter(seq: number): number { return this.db.prepare('SELECT COUNT(DISTINCT seq) FROM ha_journal WHERE seq > ?').pluck().get(seq) as number; }

  /** The journal rows of the changes in (after, upTo], in the order they were written. */
  entriesAfter(after: number, upTo: number): JournalEntry[] {
    return (this.entriesStmt.all(after, upTo) as { seq: number; epoch: number; tbl: string; op: 'I' | 'U' | 'D'; pk: string; row: string | null }[])
      .map((r) => ({ ...r, pk: JSON.parse(r.pk), row: r.row === null ? null : JSON.parse(r.row) }));
  }

  /** The highest sequence among the first `changes` changes after `after` (a bounded answer to a follower). */
  batchEnd(after: number, changes: number): number | null {
    return this.db.prepare('SELECT MAX(seq) FROM (SELECT DISTINCT seq FROM ha_journal WHERE seq > ? ORDER BY seq LIMIT ?)').pluck().get(after, changes) as number | null;
  }

  endpoints(): PeerEndpoint[] {
    return this.db.prepare('SELECT peer_id AS peerId, endpoint, at FROM peer_endpoints ORDER BY peer_id').all() as PeerEndpoint[];
  }

  /** The change that commits now gets the next sequence (inside the commit's transaction); `kept` false: its rows are not journaled (alone). */
  advance(kept: boolean): HaPosition {
    this.db.prepare(kept ? 'UPDATE ha_state SET seq = seq + 1 WHERE id = 1' : 'UPDATE ha_state SET seq = seq + 1, pruned = seq + 1 WHERE id = 1').run();
    return this.state();
  }

  /** This router now holds the changes up to `seq` of `epoch` (a follower's apply, a promotion). */
  setPosition(p: HaPosition): void { this.db.prepare('UPDATE ha_state SET epoch = ?, seq = ? WHERE id = 1').run(p.epoch, p.seq); }

  /** A follower's journal starts where its snapshot or first answer does: what it holds from before was never kept. */
  setPruned(seq: number): void { this.db.prepare('UPDATE ha_state SET pruned = ? WHERE id = 1').run(seq); }

  /** An epoch of this router's line (a promotion's, or one followed from the primary: it replaces one of the same number). */
  beginEpoch(e: EpochStart): void {
    this.db.prepare('INSERT INTO ha_epochs (epoch, start_seq, node) VALUES (?, ?, ?) ON CONFLICT (epoch) DO UPDATE SET start_seq = excluded.start_seq, node = excluded.node').run(e.epoch, e.startSeq, e.node);
  }

  /** A follower that took a snapshot stands where it does; its journal starts after it. */
  resetTo(p: SnapshotPosition): void {
    this.db.prepare('DELETE FROM ha_journal').run();
    this.setPosition(p);
    this.setPruned(p.seq);
    for (const e of p.epochs) this.beginEpoch(e);
  }

  /** Rows journaled since the last prune, as this process counted them: a prune is due after many, whatever the sequence. */
  private rowsSincePrune = 0;

  noteJournaled(rows: number): number { this.rowsSincePrune += rows; return this.rowsSincePrune; }

  /**
   * Keeps the journal's last `keep` changes, and at most `maxRows` rows (whole changes, never
   * the last one): a usage cycle at 10,000 busy peers journals 10,000 rows a minute, so a
   * bound in changes alone would let the journal grow to gigabytes.
   */
  prune(keep: number, maxRows = Infinity): number {
    const seq = this.state().seq;
    let upTo = seq - keep;
    this.rowsSincePrune = 0;
    if (Number.isFinite(maxRows)) {
      const cut = this.db.prepare('SELECT seq FROM ha_journal ORDER BY id DESC LIMIT 1 OFFSET ?').pluck().get(maxRows) as number | undefined;
      if (cut !== undefined) upTo = Math.max(upTo, Math.min(cut, seq - 1));
    }
    if (upTo <= this.prunedUpTo()) return 0;
    this.db.prepare('UPDATE ha_state SET pruned = ? WHERE id = 1').run(upTo);
    return this.db.prepare('DELETE FROM ha_journal WHERE seq <= ?').run(upTo).changes;
  }

  /** The primary's last-known endpoints (the usage cycle's, by public key): only those that moved are written. */
  noteEndpoints(byKey: ReadonlyMap<string, string>, at: string): number {
    const current = new Map((this.db.prepare('SELECT p.public_key AS k, e.endpoint AS e FROM peer_endpoints e JOIN peers p ON p.id = e.peer_id').all() as { k: string; e: string }[]).map((r) => [r.k, r.e]));
    const put = this.db.prepare('INSERT INTO peer_endpoints (peer_id, endpoint, at) SELECT id, ?, ? FROM peers WHERE public_key = ? ON CONFLICT (peer_id) DO UPDATE SET endpoint = excluded.endpoint, at = excluded.at');
    let n = 0;
    for (const [key, endpoint] of byKey) {
      if (current.get(key) === endpoint) continue;
      n += put.run(endpoint, at, key).changes;
    }
    return n;
  }

  /** Applies one follower's journal rows, verbatim, and keeps them in its own journal (inside the caller's transaction). */
  applyEntries(entries: readonly JournalEntry[]): void {
    if (!this.db.inTransaction) throw new Error('journal entries are applied inside a transaction');
    this.db.pragma('defer_foreign_keys = ON');
    const shapes = new Map(replicatedTables(this.db).map((s) => [s.name, s]));
    const keep = this.db.prepare('INSERT INTO ha_journal (seq, epoch, tbl, op, pk, row) VALUES (?, ?, ?, ?, ?, ?)');
    for (const e of entries) {
      const shape = shapes.get(e.tbl);
      if (shape) this.applyRow(shape, e);
      keep.run(e.seq, e.epoch, e.tbl, e.op, JSON.stringify(e.pk), e.row === null ? null : JSON.stringify(e.row));
    }
  }

  private stmt(key: string, sql: () => string): Database.Statement {
    let st = this.applyStmts.get(key);
    if (!st) { st = this.db.prepare(sql()); this.applyStmts.set(key, st); }
    return st;
  }

  private applyRow(shape: TableShape, e: JournalEntry): void {
    const where = shape.pk.map((c) => `${quote(c)} = ?`).join(' AND ');
    const pkValues = shape.pk.map((c) => e.pk[c] as unknown);
    const table = `main.${quote(shape.name)}`;
    if (e.op === 'D') {
      this.stmt(`${shape.name}|D`, () => `DELETE FROM ${table} WHERE ${where}`).run(...pkValues);
      return;
    }
    const row = e.row ?? {};
    // The audit log refuses updates: its rows are appended under this router's own ids.
    const columns = shape.columns.filter((c) => c in row && !(shape.name === 'audit_log' && c === 'id'));
    const values = columns.map((c) => (shape.blobs.has(c) && typeof row[c] === 'string' ? Buffer.from(row[c] as string, 'hex') : row[c] as unknown));
    const cols = columns.map(quote).join(', ');
    const marks = columns.map(() => '?').join(', ');
    const key = `${shape.name}|W|${columns.join(',')}`;
    if (shape.name === 'audit_log') {
      this.stmt(key, () => `INSERT INTO main.audit_log (${cols}) VALUES (${marks})`).run(...values);
    } else if (shape.pk[0] === 'rowid') {
      this.stmt(`${shape.name}|D`, () => `DELETE FROM ${table} WHERE ${where}`).run(...pkValues);
      this.stmt(key, () => `INSERT INTO ${table} (rowid, ${cols}) VALUES (?, ${marks})`).run(pkValues[0], ...values);
    } else {
      const updates = columns.filter((c) => !shape.pk.includes(c)).map((c) => `${quote(c)} = excluded.${quote(c)}`);
      const onConflict = updates.length ? `DO UPDATE SET ${updates.join(', ')}` : 'DO NOTHING';
      this.stmt(key, () => `INSERT INTO ${table} (${cols}) VALUES (${marks}) ON CONFLICT (${shape.pk.map(quote).join(', ')}) ${onConflict}`).run(...values);
    }
  }

  /**
   * Makes the TEMP triggers that journal every write to a replicated table while the
   * journal is open. `on()` says whether it is; the triggers take the sequence and epoch
   * from the functions the caller registers (wgcp_ha_seq, wgcp_ha_epoch).
   */
  installTriggers(fns: { on(): number; seq(): number; epoch(): number; deferring(): number; defer(key: number): void }): string[] {
    this.db.function('wgcp_ha_on', { deterministic: false }, () => fns.on());
    this.db.function('wgcp_ha_seq', { deterministic: false }, () => fns.seq());
    this.db.function('wgcp_ha_epoch', { deterministic: false }, () => fns.epoch());
    this.db.function('wgcp_ha_deferring', { deterministic: false }, () => fns.deferring());
    this.db.function('wgcp_ha_defer', { deterministic: false }, (key: unknown) => { fns.defer(Number(key)); return 1; });
    const tables = replicatedTables(this.db);
    this.shapes = new Map(tables.map((t) => [t.name, t]));
    for (const t of tables) {
      const body = (op: string, ref: string) => `INSERT INTO main.ha_journal (seq, epoch, tbl, op, pk, row) VALUES (${journalValues(t, op, ref)});`;
      const moved = (UPDATES_THAT_MATTER[t.name] ?? t.columns.filter((c) => c !== 'rowid')).map((c) => `OLD.${quote(c)} IS NOT NEW.${quote(c)}`).join(' OR ');
      const later = DEFERRABLE[t.name];
      const make = (name: string, event: string, when: string, what: string) => {
        this.db.exec(`DROP TRIGGER IF EXISTS temp.${quote(name)}`);
        this.db.exec(`CREATE TEMP TRIGGER ${quote(name)} AFTER ${event} ON main.${quote(t.name)} WHEN ${when} BEGIN ${what} END`);
      };
      for (const [event, op, ref] of [['INSERT', 'I', 'NEW'], ['UPDATE', 'U', 'NEW'], ['DELETE', 'D', 'OLD']] as const) {
        if (op !== 'U') { make(`wgcp_ha_${t.name}_${op}`, event, 'wgcp_ha_on()', body(op, ref)); continue; }
        make(`wgcp_ha_${t.name}_U`, event, `wgcp_ha_on() AND ${later ? 'NOT wgcp_ha_deferring() AND ' : ''}(${moved})`, body(op, ref));
        if (later) make(`wgcp_ha_${t.name}_UL`, event, `wgcp_ha_on() AND wgcp_ha_deferring() AND (${moved})`, `SELECT wgcp_ha_defer(NEW.${quote(later)});`);
      }
    }
    return tables.map((t) => t.name);
  }

  private shapes = new Map<string, TableShape>();

  /**
   * Journals, under the change now committing, the current rows of a deferrable table with
   * these keys ('all': every row), but those the change journaled already (inside the
   * change's transaction, with the triggers installed). Resolves to the rows journaled.
   */
  journalCurrent(table: string, keys: ReadonlySet<number> | 'all', seq: number): number {
    const t = this.shapes.get(table);
    const key = DEFERRABLE[table];
    if (!t || !key || (keys !== 'all' && keys.size === 0)) return 0;
    return this.db.prepare(`INSERT INTO main.ha_journal (seq, epoch, tbl, op, pk, row)
      SELECT ${journalValues(t, 'U', 'r')} FROM main.${quote(table)} r
      WHERE (? OR r.${quote(key)} IN (SELECT value FROM json_each(?)))
        AND r.${quote(key)} NOT IN (SELECT json_extract(pk, ${lit('$.' + key)}) FROM main.ha_journal WHERE seq = ? AND tbl = ${lit(table)})`)
      .run(keys === 'all' ? 1 : 0, JSON.stringify(keys === 'all' ? [] : [...keys]), seq).changes;
  }
}
