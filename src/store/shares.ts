// One-time config links: a peer's .conf and QR code behind a random token, stored by its
// SHA-256 only. Opening a link spends it in one UPDATE, so of two opens exactly one wins.
import crypto from 'node:crypto';
import type { DB } from './db';
import { insertSql, rowToRecord, selectList, toColumns } from '../resources/describe';
import { SHARE, type ShareRecord } from '../resources/share';

export type { ShareRecord } from '../resources/share';

type Row = Record<string, unknown>;
const fromRow = (r: Row | undefined): ShareRecord | null => (r ? rowToRecord(SHARE, r, {}) : null);

export const shareTokenHash = (token: string): string => crypto.createHash('sha256').update(token, 'utf8').digest('hex');

const COLS = selectList(SHARE);

export class ShareTable {
  private readonly insertStmt;
  private readonly byPeerStmt;
  private readonly getStmt;
  private readonly byHashStmt;
  private readonly revokeStmt;
  private readonly consumeStmt;

  constructor(db: DB) {
    this.insertStmt = db.prepare(insertSql(SHARE));
    this.byPeerStmt = db.prepare(`SELECT ${COLS} FROM share_links WHERE peer_id = ? ORDER BY id DESC`);
    this.getStmt = db.prepare(`SELECT ${COLS} FROM share_links WHERE id = ?`);
    this.byHashStmt = db.prepare(`SELECT ${COLS} FROM share_links WHERE token_hash = ?`);
    this.revokeStmt = db.prepare('UPDATE share_links SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL AND used_at IS NULL');
    this.consumeStmt = db.prepare(`UPDATE share_links SET used_at = @now
      WHERE token_hash = @hash AND used_at IS NULL AND revoked_at IS NULL AND expires_at > @now RETURNING ${COLS}`);
  }

  create(peerId: number, token: string, now: string, expiresAt: string, createdBy: string): ShareRecord {
    const row = { peerId, tokenHash: shareTokenHash(token), createdAt: now, expiresAt, createdBy };
    const id = Number(this.insertStmt.run({ ...toColumns(SHARE, row), id: null }).lastInsertRowid);
    return this.get(id)!;
  }

  get(id: number): ShareRecord | null { return fromRow(this.getStmt.get(id) as Row | undefined); }
  listOfPeer(peerId: number): ShareRecord[] { return (this.byPeerStmt.all(peerId) as Row[]).map((r) => fromRow(r)!); }
  findByToken(token: string): ShareRecord | null { return fromRow(this.byHashStmt.get(shareTokenHash(token)) as Row | undefined); }

  /** False when the link is gone, used or revoked already. */
  revoke(id: number, now: string): boolean { return this.revokeStmt.run(now, id).changes > 0; }

  /** Spends the link if it is live: the record, or null when it is unknown, used, revoked or expired. */
  consume(token: string, now: string): ShareRecord | null {
    return fromRow(this.consumeStmt.get({ now, hash: shareTokenHash(token) }) as Row | undefined);
  }
}
