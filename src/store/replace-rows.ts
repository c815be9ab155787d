// A restore's write: every row of the live database replaced by the rows of an attached,
// checked and migrated copy (the same schema), inside the caller's transaction, so that the
// restore commits whole or not at all. The audit log is the router's record of who did
// what and outlives a restore (its rows refuse DELETE), as do the standby pair's journal tables; AUTOINCREMENT counters only grow
// (an id the log or a history row names is never given again).
import type { DB } from './db';

/**
 * Tables a restore leaves as they are: the audit log, and the standby pair's journal and
 * position (a restore is one more change of this router's line; an older backup must not
 * take its sequence back).
 */
const KEPT = new Set(['audit_log', 'audit_prune', 'ha_state', 'ha_epochs', 'ha_journal']);

/**
 * The order of the copy: job_state first, so that the triggers of the rows copied after it
 * move its versions (the usage cycle and the free addresses then read everything again);
 * the counters kept by triggers last, so that they end as the copy had them.
 */
function copyOrder(tables: string[]): string[] {
  const rank = (t: string) => (t === 'job_state' ? 0 : t === 'metric_counters' ? 2 : 1);
  return [...tables].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

const quote = (name: string): string => `"${name.replace(/"/g, '""')}"`;

/** The live database's own tables, with their columns. */
function liveTables(db: DB): Map<string, string[]> {
  const names = db.prepare("SELECT name FROM main.sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").pluck().all() as string[];
  return new Map(names.filter((n) => !KEPT.has(n)).map((n) => [n, (db.prepare(`PRAGMA main.table_info(${quote(n)})`).all() as { name: string }[]).map((c) => c.name)]));
}

/** Rows copied, by table. Must run inside a transaction, with the copy attached as `schema`. */
export function replaceAllRows(db: DB, schema: string): Record<string, number> {
  if (!db.inTransaction) throw new Error('replaceAllRows runs inside the restore transaction');
  // Foreign keys are checked at the commit, when every table holds the copy's rows.
  db.pragma('defer_foreign_keys = ON');
  const tables = liveTables(db);
  const theirs = new Set(db.prepare(`SELECT name FROM ${quote(schema)}.sqlite_master WHERE type = 'table'`).pluck().all() as string[]);
  for (const name of tables.keys()) db.prepare(`DELETE FROM main.${quote(name)}`).run();
  const copied: Record<string, number> = {};
  for (const name of copyOrder([...tables.keys()])) {
    if (!theirs.has(name)) throw new Error(`the restored copy has no table ${name}: it was not migrated to this schema`);
    // Filled again by the triggers of the first pass's deletes: emptied once more.
    if (name === 'job_state' || name === 'metric_counters') db.prepare(`DELETE FROM main.${name}`).run();
    const cols = tables.get(name)!.map(quote).join(', ');
    copied[name] = db.prepare(`INSERT INTO main.${quote(name)} (${cols}) SELECT ${cols} FROM ${quote(schema)}.${quote(name)}`).run().changes;
  }
  return copied;
}
