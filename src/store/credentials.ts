// API keys and access tokens, stored only as SHA-256 hashes. Matching hashes every stored
// credential of the kind and compares each in constant time.
import crypto from 'node:crypto';
import type { DB } from './db';
import type { Role } from './roles';
import { insertSql, rowToRecord, selectList, toColumns } from '../resources/describe';
import { CREDENTIAL, type CredentialKind, type CredentialRecord } from '../resources/credential';

export type { CredentialKind } from '../resources/credential';
/** A credential as stored, without its hash (resources/credential.ts). */
export type CredentialInfo = CredentialRecord;

type Row = Record<string, unknown>;
const fromRow = (r: Row): CredentialInfo => rowToRecord(CREDENTIAL, r, {});

export const hashSecret = (secret: string): Buffer => crypto.createHash('sha256').update(secret, 'utf8').digest();

export function newSecret(kind: CredentialKind): string {
  return (kind === 'apikey' ? 'wgk_' : 'wgt_') + crypto.randomBytes(32).toString('base64url');
}

/** A live credential that matched a presented secret. */
export interface CredentialMatch { id: number; name: string; role: Role; expiresAt: string | null }

export class CredentialTable {
  private readonly listStmt;
  private readonly hashesStmt;
  private readonly insertStmt;
  private readonly deleteStmt;
  private readonly touchStmt;
  private readonly countStmt;
  private readonly roleStmt;
  private readonly getStmt;
  private readonly adminsStmt;

  constructor(db: DB) {
    const cols = selectList(CREDENTIAL);
    this.listStmt = db.prepare(`SELECT ${cols} FROM credentials WHERE kind = ? ORDER BY id`);
    this.hashesStmt = db.prepare('SELECT id, name, role, hash, expires_at AS expiresAt FROM credentials WHERE kind = ?');
    this.insertStmt = db.prepare(insertSql(CREDENTIAL));
    this.deleteStmt = db.prepare('DELETE FROM credentials WHERE kind = ? AND id = ?');
    // At most one write a minute per credential: a router's flash should not pay for every GET.
    this.touchStmt = db.prepare(`UPDATE credentials SET last_used_at = @now WHERE id = @id
      AND (last_used_at IS NULL OR last_used_at < strftime('%Y-%m-%dT%H:%M:%fZ', @now, '-60 seconds'))`);
    this.countStmt = db.prepare('SELECT COUNT(*) AS n FROM credentials WHERE kind = ?');
    this.roleStmt = db.prepare('UPDATE credentials SET role = ? WHERE kind = ? AND id = ?');
    this.getStmt = db.prepare(`SELECT ${cols} FROM credentials WHERE id = ?`);
    this.adminsStmt = db.prepare(`SELECT COUNT(*) AS n FROM credentials WHERE role = 'admin' AND (expires_at IS NULL OR expires_at > ?)`);
  }

  /** Makes a credential and returns its secret; only the hash is kept. */
  create(kind: CredentialKind, name: string, now: string, expiresAt: string | null = null, role: Role = 'admin'): { id: number; secret: string } {
    const secret = newSecret(kind);
    const row = { kind, name, role, hash: hashSecret(secret).toString('hex'), createdAt: now, expiresAt, lastUsedAt: null };
    const id = Number(this.insertStmt.run({ ...toColumns(CREDENTIAL, row), id: null }).lastInsertRowid);
    return { id, secret };
  }

  list(kind: CredentialKind): CredentialInfo[] { return (this.listStmt.all(kind) as Row[]).map(fromRow); }
  count(kind: CredentialKind): number { return (this.countStmt.get(kind) as { n: number }).n; }
  revoke(kind: CredentialKind, id: number): boolean { return this.deleteStmt.run(kind, id).changes > 0; }
  get(id: number): CredentialInfo | null {
    const r = this.getStmt.get(id) as Row | undefined;
    return r ? fromRow(r) : null;
  }
  /** Keys and unexpired tokens with the admin role. */
  liveAdminCount(now: string): number { return (this.adminsStmt.get(now) as { n: number }).n; }
  /** False when no credential of that kind has this id. */
  setRole(kind: CredentialKind, id: number, role: Role): boolean { return this.roleStmt.run(role, kind, id).changes > 0; }

  /** The live credential matching `secret`, or null. */
  match(kind: CredentialKind, secret: string, now: string): CredentialMatch | null {
    const presented = hashSecret(secret);
    let found: CredentialMatch | null = null;
    for (const row of this.hashesStmt.all(kind) as (CredentialMatch & { hash: string })[]) {
      const stored = Buffer.from(row.hash, 'hex');
      const equal = stored.length === presented.length && crypto.timingSafeEqual(stored, presented);
      if (equal && (row.expiresAt === null || row.expiresAt > now)) found = { id: row.id, name: row.name, role: row.role, expiresAt: row.expiresAt };
    }
    return found;
  }

  touch(id: number, now: string): void { this.touchStmt.run({ now, id }); }
}
