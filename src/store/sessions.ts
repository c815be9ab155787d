// Sign-in sessions of the dashboard. The cookie value is never stored: a row is found by
// the SHA-256 of it. A session ends when idle too long, at its absolute end, when signed
// out, or when the key or token it was opened with is revoked (ON DELETE CASCADE). A
// session of single sign-on belongs to a person (their subject, email and role) instead.
import crypto from 'node:crypto';
import type { Store } from './store';
import { isRole, type Role } from './roles';

export const SESSION_IDLE_MS = 30 * 60_000;
export const SESSION_MAX_MS = 12 * 60 * 60_000;
/**
 * Live sessions kept at most per key or token (WGCP_API_KEY's together), or per person;
 * past it that credential's (or person's) least recently used go first. Per credential, never for the whole router:
 * one viewer opening many sessions must not sign anyone else out.
 */
export const SESSION_MAX_PER_CREDENTIAL = 20;

/** A person signed in by single sign-on: the provider's subject, the email it gave, the role the mapping gave. */
export interface Person { subject: string; email: string | null; role: Role }

/** What a session was opened with: a stored key or token (its id), the configured WGCP_API_KEY (null), or a person (single sign-on). */
export interface SessionGrant { credentialId: number | null; keyHash: string; expiresAt: string | null; person?: Person | null }

export interface SessionInfo { createdAt: string; lastSeenAt: string; expiresAt: string; idleExpiresAt: string }

/** A live session and the credential it was opened with (null: WGCP_API_KEY, or a person's). */
export interface LiveSession extends SessionInfo { credentialId: number | null; person: Person | null }

/** A live session as an admin sees it in the list (never its cookie or hash). */
export interface ListedSession { id: number; credentialId: number | null; person: Person | null; createdAt: string; lastSeenAt: string; expiresAt: string }

interface Row { id: number; credentialId: number | null; keyHash: string; createdAt: string; lastSeenAt: string; expiresAt: string; personSubject: string | null; personEmail: string | null; personRole: string | null }

/** How a person is named in the audit log and the session list: the email and the subject, which alone is unique and stable. */
export const personName = (p: Pick<Person, 'subject' | 'email'>): string => (p.email ? `${p.email} (${p.subject})` : p.subject);

const personOf = (row: Row): Person | null => (row.personSubject === null || !isRole(row.personRole) ? null : { subject: row.personSubject, email: row.personEmail, role: row.personRole });
const COLUMNS = `id, credential_id AS credentialId, key_hash AS keyHash, created_at AS createdAt, last_seen_at AS lastSeenAt,
  expires_at AS expiresAt, person_subject AS personSubject, person_email AS personEmail, person_role AS personRole`;

export const sha256Hex = (text: string): string => crypto.createHash('sha256').update(text, 'utf8').digest('hex');
const plusMs = (iso: string, ms: number): string => new Date(Date.parse(iso) + ms).toISOString();

export class SessionTable {
  private readonly insertStmt;
  private readonly byHash;
  private readonly deleteStmt;
  private readonly touchStmt;
  private readonly pruneStmt;
  private readonly trimStmt;
  private readonly liveStmt;
  private readonly deleteByIdStmt;
  private readonly deleteBySubjectStmt;

  constructor(private readonly store: Store) {
    const db = store.db;
    this.insertStmt = db.prepare(`INSERT INTO sessions (hash, credential_id, key_hash, created_at, last_seen_at, expires_at, person_subject, person_email, person_role)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`);
    this.byHash = db.prepare(`SELECT ${COLUMNS} FROM sessions WHERE hash = ?`);
    this.liveStmt = db.prepare(`SELECT ${COLUMNS} FROM sessions WHERE expires_at > @now AND last_seen_at > @idle ORDER BY last_seen_at DESC, id DESC`);
    this.deleteByIdStmt = db.prepare('DELETE FROM sessions WHERE id = ?');
    this.deleteBySubjectStmt = db.prepare('DELETE FROM sessions WHERE person_subject = ?');
    this.deleteStmt = db.prepare('DELETE FROM sessions WHERE hash = ?');
    // At most one write a minute per session, as for credentials: a router's flash is not paid per request.
    this.touchStmt = db.prepare(`UPDATE sessions SET last_seen_at = @now WHERE id = @id
      AND last_seen_at < strftime('%Y-%m-%dT%H:%M:%fZ', @now, '-60 seconds')`);
    this.pruneStmt = db.prepare('DELETE FROM sessions WHERE expires_at <= ? OR last_seen_at <= ?');
    // Each person is a bucket of their own: WGCP_API_KEY's and the people's sessions all have a NULL credential.
    this.trimStmt = db.prepare(`DELETE FROM sessions WHERE credential_id IS @credential AND person_subject IS @person AND id NOT IN
      (SELECT id FROM sessions WHERE credential_id IS @credential AND person_subject IS @person ORDER BY last_seen_at DESC, id DESC LIMIT @keep)`);
  }

  /** Opens a session and returns the cookie value; only its hash is kept. */
  open(grant: SessionGrant, now: string): string {
    const value = crypto.randomBytes(32).toString('base64url');
    const end = plusMs(now, SESSION_MAX_MS);
    const expiresAt = grant.expiresAt !== null && grant.expiresAt < end ? grant.expiresAt : end;
    // Session writes feed no cached view: they leave the store's revision alone.
    this.store.telemetryTx(() => {
      this.pruneStmt.run(now, plusMs(now, -SESSION_IDLE_MS));
      const p = grant.person ?? null;
      this.insertStmt.run(sha256Hex(value), grant.credentialId, grant.keyHash, now, now, expiresAt, p?.subject ?? null, p?.email ?? null, p?.role ?? null);
      this.trimStmt.run({ credential: grant.credentialId, person: p?.subject ?? null, keep: SESSION_MAX_PER_CREDENTIAL });
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
    return { credentialId: row.credentialId, person: personOf(row), createdAt: row.createdAt, lastSeenAt: now, expiresAt: row.expiresAt, idleExpiresAt: plusMs(now, SESSION_IDLE_MS) };
  }

  /** Whether the session is live, without counting this look as a use (what holds it open asks). */
  isLive(value: string, configuredKey: string | null, now: string): boolean {
    return this.liveRow(value, configuredKey, now) !== null;
  }

  private liveRow(value: string, configuredKey: string | null, now: string): Row | null {
    const row = this.byHash.get(sha256Hex(value)) as Row | undefined;
    if (!row) return null;
    const idleEnd = plusMs(row.lastSeenAt, SESSION_IDLE_MS);
    if (row.expiresAt <= now || idleEnd <= now) return null;
    const person = personOf(row);
    if (row.personSubject !== null && person === null) return null;
    if (row.credentialId === null && person === null && (configuredKey === null || sha256Hex(configuredKey) !== row.keyHash)) return null;
    return row;
  }

  /** The live sessions, most recently used first. */
  list(now: string): ListedSession[] {
    return (this.liveStmt.all({ now, idle: plusMs(now, -SESSION_IDLE_MS) }) as Row[]).map((r) => ({
      id: r.id, credentialId: r.credentialId, person: personOf(r), createdAt: r.createdAt, lastSeenAt: r.lastSeenAt, expiresAt: r.expiresAt,
    }));
  }

  /** Ends one session by its id (an admin's); false when there was none. */
  closeById(id: number): boolean {
    return this.store.telemetryTx(() => this.deleteByIdStmt.run(id).changes > 0);
  }

  /** Ends every session of a person (an admin's); how many there were. */
  closePerson(subject: string): number {
    return this.store.telemetryTx(() => this.deleteBySubjectStmt.run(subject).changes);
  }

  /** Ends a session (sign-out). */
  close(value: string): boolean {
    return this.store.telemetryTx(() => this.deleteStmt.run(sha256Hex(value)).changes > 0);
  }
}


