// One-time config links: a peer's .conf and QR code behind a random token, stored by its
// SHA-256 only. Opening a link spends it in one UPDATE, so of two opens exactly one wins.
import crypto from 'node:crypto';
import type { DB } from './db';

export interface ShareRecord {
  id: number;
  peerId: number;
  createdAt: string;
  expiresAt: string;
  usedAt: string | null;
  revokedAt: string | null;
  createdBy: string;
}

export const shareTokenHash = (token: string): string => crypto.createHash('sha256').update(token, 'utf8').digest('hex');

const COLS = 'id, peer_id AS peerId, created_at AS createdAt, expires_at AS expiresAt, used_at AS usedAt, revoked_at AS revokedAt, created_by AS createdBy';

export class ShareTable {
  private readonly insertStmt;
  private readonly byPeerStmt;
  private readonly getStmt;
  private readonly byHashStmt;
  private readonly revokeStmt;
  private readonly consumeStmt;

  constructor(db: DB) {
    this.insertStmt = db.prepare('INSERT INTO share_links (peer_id, token_hash, created_at, expires_at, created_by) VALUES (?, ?, ?, ?, ?)');
    this.byPeerStmt = db.prepare(`SELECT ${COLS} FROM share_links WHERE peer_id = ? ORDER BY id DESC`);
    this.getStmt = db.prepare(`SELECT ${COLS} FROM share_links WHERE id = ?`);
    this.byHashStmt = db.prepare(`SELECT ${COLS} FROM share_links WHERE token_hash = ?`);
    this.revokeStmt = db.prepare('UPDATE share_links SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL AND used_at IS NULL');
    this.consumeStmt = db.prepare(`UPDATE share_links SET used_at = @now
      WHERE token_hash = @hash AND used_at IS NULL AND revoked_at IS NULL AND expires_at > @now RETURNING ${COLS}`);
  }

  create(peerId: number, token: string, now: string, expiresAt: string, createdBy: string): ShareRecord {
    const id = Number(this.insertStmt.run(peerId, shareTokenHash(token), now, expiresAt, createdBy).lastInsertRowid);
    return this.get(id)!;
  }

  get(id: number): ShareRecord | null { return (this.getStmt.get(id) as ShareRecord | undefined) ?? null; }
  listOfPeer(peerId: number): ShareRecord[] { return this.byPeerStmt.all(peerId) as ShareRecord[]; }
  findByToken(token: string): ShareRecord | null { return (this.byHashStmt.get(shareTokenHash(token)) as ShareRecord | undefined) ?? null; }

  /** False when the link is gone, used or revoked already. */
  revoke(id: number, now: string): boolean { return this.revokeStmt.run(now, id).changes > 0; }

  /** Spends the link if it is live: the record, or null when it is unknown, used, revoked or expired. */
  consume(token: string, now: string): ShareRecord | null {
    return (this.consumeStmt.get({ now, hash: shareTokenHash(token) }) as ShareRecord | undefined) ?? null;
  }
}
