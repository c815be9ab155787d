// API keys and access tokens, stored only as SHA-256 hashes. Matching hashes every stored
// credential of the kind and compares each in constant time.
import crypto from 'node:crypto';
import type { DB } from './db';

export type CredentialKind = 'apikey' | 'token';

export interface CredentialInfo {
  id: number;
  kind: CredentialKind;
  name: string;
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
}

export const hashSecret = (secret: string): Buffer => crypto.createHash('sha256').update(secret, 'utf8').digest();

export function newSecret(kind: CredentialKind): string {
  return (kind === 'apikey' ? 'wgk_' : 'wgt_') + crypto.randomBytes(32).toString('base64url');
}

export class CredentialTable {
  private readonly listStmt;
  private readonly hashesStmt;
  private readonly insertStmt;
  private readonly deleteStmt;
  private readonly touchStmt;
  private readonly countStmt;

  constructor(db: DB) {
    const cols = 'id, kind, name, created_at AS createdAt, expires_at AS expiresAt, last_used_at AS lastUsedAt';
    this.listStmt = db.prepare(`SELECT ${cols} FROM credentials WHERE kind = ? ORDER BY id`);
    this.hashesStmt = db.prepare('SELECT id, hash, expires_at AS expiresAt FROM credentials WHERE kind = ?');
    this.insertStmt = db.prepare('INSERT INTO credentials (kind, name, hash, created_at, expires_at) VALUES (?, ?, ?, ?, ?)');
    this.deleteStmt = db.prepare('DELETE FROM credentials WHERE kind = ? AND id = ?');
    // At most one write a minute per credential: a router's flash should not pay for every GET.
    this.touchStmt = db.prepare(`UPDATE credentials SET last_used_at = @now WHERE id = @id
      AND (last_used_at IS NULL OR last_used_at < strftime('%Y-%m-%dT%H:%M:%fZ', @now, '-60 seconds'))`);
    this.countStmt = db.prepare('SELECT COUNT(*) AS n FROM credentials WHERE kind = ?');
  }

  /** Makes a credential and returns its secret; only the hash is kept. */
  create(kind: CredentialKind, name: string, now: string, expiresAt: string | null = null): { id: number; secret: string } {
    const secret = newSecret(kind);
    const id = Number(this.insertStmt.run(kind, name, hashSecret(secret).toString('hex'), now, expiresAt).lastInsertRowid);
    return { id, secret };
  }

  list(kind: CredentialKind): CredentialInfo[] { return this.listStmt.all(kind) as CredentialInfo[]; }
  count(kind: CredentialKind): number { return (this.countStmt.get(kind) as { n: number }).n; }
  revoke(kind: CredentialKind, id: number): boolean { return this.deleteStmt.run(kind, id).changes > 0; }

  /** The id of the live credential matching `secret`, or null. */
  match(kind: CredentialKind, secret: string, now: string): number | null {
    const presented = hashSecret(secret);
    let found: number | null = null;
    for (const row of this.hashesStmt.all(kind) as { id: number; hash: string; expiresAt: string | null }[]) {
      const stored = Buffer.from(row.hash, 'hex');
      const equal = stored.length === presented.length && crypto.timingSafeEqual(stored, presented);
      if (equal && (row.expiresAt === null || row.expiresAt > now)) found = row.id;
    }
    return found;
  }

  touch(id: number, now: string): void { this.touchStmt.run({ now, id }); }
}
