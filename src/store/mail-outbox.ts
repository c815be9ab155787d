// Mail notices waiting to be sent: written in the transaction of the change that causes
// them, removed once sent or given up on, retried with back-off in between.
import type { DB } from './db';

export interface MailItem {
  id: number;
  event: string;
  envelope: string;
  attempts: number;
  nextAttemptAt: number;
}

export class MailOutboxTable {
  private readonly insertStmt;
  private readonly dueStmt;
  private readonly nextDueStmt;
  private readonly rescheduleStmt;
  private readonly removeStmt;

  constructor(db: DB) {
    this.insertStmt = db.prepare('INSERT INTO mail_outbox (event, envelope, attempts, next_attempt_at, created_at) VALUES (?, ?, 0, ?, ?)');
    this.dueStmt = db.prepare(`SELECT id, event, envelope, attempts, next_attempt_at AS nextAttemptAt FROM mail_outbox
      WHERE next_attempt_at <= ? ORDER BY next_attempt_at, id LIMIT ?`);
    this.nextDueStmt = db.prepare('SELECT MIN(next_attempt_at) FROM mail_outbox').pluck();
    this.rescheduleStmt = db.prepare('UPDATE mail_outbox SET attempts = ?, next_attempt_at = ? WHERE id = ?');
    this.removeStmt = db.prepare('DELETE FROM mail_outbox WHERE id = ?');
  }

  enqueue(event: string, envelope: string, dueAt: number, createdAt: string): number {
    return Number(this.insertStmt.run(event, envelope, dueAt, createdAt).lastInsertRowid);
  }

  due(nowMs: number, limit: number): MailItem[] { return this.dueStmt.all(nowMs, limit) as MailItem[]; }
  nextDueAt(): number | null { return (this.nextDueStmt.get() as number | null) ?? null; }
  reschedule(id: number, attempts: number, nextAttemptAt: number): void { this.rescheduleStmt.run(attempts, nextAttemptAt, id); }
  remove(id: number): void { this.removeStmt.run(id); }
}
