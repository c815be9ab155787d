// Sign-in sessions of the dashboard. The cookie value is never stored: a row is found by
// the SHA-256 of it. A session ends when idle too long, at its absolute end, when signed
// out, or when the key or token it was opened with is revoked (ON DELETE CASCADE).
import crypto from 'node:crypto';
import type { Store } from './store';

export const SESSION_IDLE_MS = 30 * 60_000;
export const SESSION_MAX_MS = 12 * 60 * 60_000;
/**
 * Live sessions kept at most per key or token (WGCP_API_KEY's together); past it that
 * credential's least recently used go first. Per credential, never for the whole router:
 * one viewer opening many sessions must not sign anyone else out.
 */
export const SESSION_MAX_PER_CREDENTIAL = 20;

/** What a session was opened with: a stored key or token (its id), or the configured WGCP_API_KEY (null). */
export interface SessionGrant { credentialId: number | null; keyHash: string; expiresAt: string | null }

export interface SessionInfo { createdAt: string; lastSeenAt: string; expiresAt: string; idleExpiresAt: string }

/** A live session and the credential it was opened with (null: WGCP_API_KEY). */
export interface LiveSession extends SessionInfo { credentialId: number | null }

export const sha256Hex = (text: string): string => crypto.createHash('sha256').update(text, 'utf8').digest('hex');
const plusMs = (iso: string, ms: number): string => new Date(Date.parse(iso) + ms).toISOString();

export class SessionTable {
  private readonly insertStmt;
  private readonly byHash;
  private readonly deleteStmt;
  private readonly touchStmt;
  private readonly pruneStmt;
  private readonly trimStmt;

  constructor(private readonly store: Store) {
    const db = store.db;
    this.insertStmt = db.prepare(`INSERT INTO sessions (hash, credential_id, key_hash, created_at, last_seen_at, expires_at)
      VALUES (?, ?, ?, ?, ?, ?)`);
    this.byHash = db.prepare(`SELECT id, credential_id AS credentialId, key_hash AS keyHash, created_at AS createdAt,
      last_seen_at AS lastSeenAt, expires_at AS expiresAt FROM sessions WHERE hash = ?`);
    this.deleteStmt = db.prepare('DELETE FROM sessions WHERE hash = ?');
    // At most one write a minute per session, as for credentials: a router's flash is not paid per request.
    this.touchStmt = db.prepare(`UPDATE sessions SET last_seen_at = @now WHERE id = @id
      AND last_seen_at < strftime('%Y-%m-%dT%H:%M:%fZ', @now, '-60 seconds')`);
    this.pruneStmt = db.prepare('DELETE FROM sessions WHERE expires_at <= ? OR last_seen_at <= ?');
    this.trimStmt = db.prepare(`DELETE FROM sessions WHERE credential_id IS @credential AND id NOT IN
      (SELECT id FROM sessions WHERE credential_id IS @credential ORDER BY last_seen_at DESC, id DESC LIMIT @keep)`);
  }

  /** Opens a session and returns the cookie value; only its hash is kept. */
  open(grant: SessionGrant, now: string): string {
    const value = crypto.randomBytes(32).toString('base64url');
    const end = plusMs(now, SESSION_MAX_MS);
    const expiresAt = grant.expiresAt !== null && grant.expiresAt < end ? grant.expiresAt : end;
    // Session writes feed no cached view: they leave the store's revision alone.
    this.store.telemetryTx(() => {
      this.pruneStmt.run(now, plusMs(now, -SESSION_IDLE_MS));
      this.insertStmt.run(sha256Hex(value), grant.credentialId, grant.keyHash, now, now, expiresAt);
      this.trimStmt.run({ credential: grant.credentialId, keep: SESSION_MAX_PER_CREDENTIAL });
    });
    return value;
  }

  /**
   * The live session for a cookie value, touched as used; null when there is none, it has
   * ended, or it was opened with a configured key that is no longer the configured one.
   */
  use(value: string, configuredKey: string | null, now: string): LiveSession | null {
    const row = this.liveRow(value, configuredKey, now);
    if (!row) return null;
    this.store.telemetryTx(() => this.touchStmt.run({ now, id: row.id }));
    return { credentialId: row.credentialId, createdAt: row.createdAt, lastSeenAt: now, expiresAt: row.expiresAt, idleExpiresAt: plusMs(now, SESSION_IDLE_MS) };
  }

  /** Whether the session is live, without counting this look as a use (what holds it open asks). */
  isLive(value: string, configuredKey: string | null, now: string): boolean {
    return this.liveRow(value, configuredKey, now) !== null;
  }

  private liveRow(value: string, configuredKey: string | null, now: string) {
    const row = this.byHash.get(sha256Hex(value)) as ({ id: number; credentialId: number | null; keyHash: string } & Omit<SessionInfo, 'idleExpiresAt'>) | undefined;
    if (!row) return null;
    const idleEnd = plusMs(row.lastSeenAt, SESSION_IDLE_MS);
    if (row.expiresAt <= now || idleEnd <= now) return null;
    if (row.credentialId === null && (configuredKey === null || sha256Hex(configuredKey) !== row.keyHash)) return null;
    return row;
  }

  /** Ends a session (sign-out). */
  close(value: string): boolean {
    return this.store.telemetryTx(() => this.deleteStmt.run(sha256Hex(value)).changes > 0);
  }
}

// One table object per store, made when the first session is looked at.
const tables = new WeakMap<Store, SessionTable>();

export function sessionTable(store: Store): SessionTable {
  let t = tables.get(store);
  if (!t) {
    t = new SessionTable(store);
    tables.set(store, t);
  }
  return t;
}
