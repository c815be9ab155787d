// The audit log: who did what, when, from where. Rows are only ever appended; triggers
// (migration of issue 26) refuse UPDATE and DELETE, save the prune below, which the daemon
// alone runs. A row's summary never holds a secret: fields named like one are left out.
import type { DB } from './db';
import type { Role } from './roles';

/** Who acts: a key or token over the API, a page session, a person signed in by single sign-on, the daemon itself, the CLI, a share link, a device provisioning itself. */
export type ActorKind = 'apikey' | 'token' | 'page' | 'person' | 'reconciler' | 'job' | 'cli' | 'share' | 'device';

export interface Actor {
  kind: ActorKind;
  /** The key or token id (a page session: the one it was opened with); null for WGCP_API_KEY and the daemon's own. */
  id: number | null;
  name: string;
  role: Role | null;
  /** The source address of the request; null when nothing came over the network. */
  address: string | null;
  /** For requests: which kind of credential it was (a page session's: the one it was opened with). */
  credentialKind?: 'apikey' | 'token';
  /** A session of single sign-on: whose (its passkeys are the person's). */
  person?: { subject: string; email: string | null };
}

export interface AuditEntry {
  /** ISO 8601 UTC; the store's clock is the caller's. */
  at: string;
  actor: Actor;
  /** A dotted verb, e.g. `peer.update`, `share.use`, `session.sign-in-failed`. */
  action: string;
  /** What was acted on: `peer`, `server`, `apikey`, …; '' when nothing in particular. */
  targetType: string;
  targetId: string | number | null;
  summary?: Record<string, unknown>;
}

export interface AuditRow {
  id: number;
  at: string;
  actor: { kind: ActorKind; id: number | null; name: string };
  address: string | null;
  role: Role | null;
  action: string;
  targetType: string;
  targetId: string | null;
  summary: Record<string, unknown>;
}

export interface AuditFilter {
  actorKind?: ActorKind;
  actorId?: number;
  action?: string;
  targetType?: string;
  targetId?: string;
  /** Inclusive lower and exclusive upper bound on `at`. */
  since?: string;
  until?: string;
}

/**
 * Newest first, `before` the cursor (the id of the last row of the previous page); or, with
 * `after`, oldest first from the row after that id.
 */
export interface AuditPage { limit: number; before?: number; after?: number }

const SECRET_FIELD = /(private|preshared)_?key|secret|password|passphrase|token|^key$|^code$|recovery/i;

/** A copy of `value` without the fields that name a secret, at any depth. */
export function withoutSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutSecrets);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (!SECRET_FIELD.test(k)) out[k] = withoutSecrets(v);
  return out;
}

interface Stored { id: number; at: string; actorKind: ActorKind; actorId: number | null; actorName: string; address: string | null; role: Role | null; action: string; targetType: string; targetId: string | null; summary: string }

const present = (r: Stored): AuditRow => ({
  id: r.id, at: r.at, actor: { kind: r.actorKind, id: r.actorId, name: r.actorName }, address: r.address, role: r.role,
  action: r.action, targetType: r.targetType, targetId: r.targetId, summary: JSON.parse(r.summary) as Record<string, unknown>,
});

export class AuditTable {
  private readonly insertStmt;
  private pruning: string | null = null;
  private pruneReady = false;

  constructor(private readonly db: DB) {
    this.insertStmt = db.prepare(`INSERT INTO audit_log (at, actor_kind, actor_id, actor_name, address, role, action, target_type, target_id, summary)
      VALUES (@at, @actorKind, @actorId, @actorName, @address, @role, @action, @targetType, @targetId, @summary)`);
  }

  /** Appends one row and returns its id. Synchronous: call it inside the change's own transaction. */
  append(entry: AuditEntry): number {
    const { actor } = entry;
    return Number(this.insertStmt.run({
      at: entry.at, actorKind: actor.kind, actorId: actor.id, actorName: actor.name, address: actor.address, role: actor.role,
      action: entry.action, targetType: entry.targetType, targetId: entry.targetId === null ? null : String(entry.targetId),
      summary: JSON.stringify(withoutSecrets(entry.summary ?? {})),
    }).lastInsertRowid);
  }

  list(filter: AuditFilter, page: AuditPage): { entries: AuditRow[]; nextCursor: number | null } {
    const where: string[] = [];
    const args: Record<string, unknown> = { limit: page.limit + 1 };
    const add = (sql: string, name: string, value: unknown) => { if (value !== undefined) { where.push(sql); args[name] = value; } };
    add('actor_kind = @actorKind', 'actorKind', filter.actorKind);
    add('actor_id = @actorId', 'actorId', filter.actorId);
    add('(action = @action OR action LIKE @action || \'.%\')', 'action', filter.action);
    add('target_type = @targetType', 'targetType', filter.targetType);
    add('target_id = @targetId', 'targetId', filter.targetId);
    add('at >= @since', 'since', filter.since);
    add('at < @until', 'until', filter.until);
    add('id < @before', 'before', page.before);
    add('id > @after', 'after', page.after);
    const order = page.after === undefined ? 'DESC' : 'ASC';
    const sql = `SELECT id, at, actor_kind AS actorKind, actor_id AS actorId, actor_name AS actorName, address, role, action,
      target_type AS targetType, target_id AS targetId, summary FROM audit_log
      ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id ${order} LIMIT @limit`;
    const rows = (this.db.prepare(sql).all(args) as Stored[]).map(present);
    const more = rows.length > page.limit;
    if (more) rows.pop();
    return { entries: rows, nextCursor: more ? rows[rows.length - 1].id : null };
  }

  /**
   * Deletes the rows older than `before` and returns how many. Only this may delete: the
   * trigger on audit_prune asks wgcp_audit_prune(), which this connection alone knows and
   * which says yes only for the cut-off of the prune under way.
   */
  prune(before: string): number {
    if (!this.pruneReady) {
      this.db.function('wgcp_audit_prune', { deterministic: false }, (cutoff: unknown) => (cutoff === this.pruning ? 1 : 0));
      this.pruneReady = true;
    }
    this.pruning = before;
    try {
      return this.db.transaction(() => {
        this.db.prepare('UPDATE audit_prune SET before = ? WHERE id = 1').run(before);
        const n = this.db.prepare('DELETE FROM audit_log WHERE at < ?').run(before).changes;
        this.db.prepare('UPDATE audit_prune SET before = NULL WHERE id = 1').run();
        return n;
      }).immediate();
    } finally {
      this.pruning = null;
    }
  }
}
