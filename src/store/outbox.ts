// The webhook outbox (events waiting to be delivered, with their attempt count and the
// time of the next try) and the delivery log (one row an attempt, the newest kept).
import type { DB } from './db';

export interface OutboxItem {
  id: number;
  webhookId: number;
  event: string;
  envelope: string;
  attempts: number;
  nextAttemptAt: number;
  createdAt: string;
}

export type DeliveryOutcome = 'delivered' | 'retrying' | 'failed' | 'test';

export interface DeliveryRecord {
  id: number;
  webhookId: number;
  outboxId: number | null;
  event: string;
  attempt: number;
  outcome: DeliveryOutcome;
  httpStatus: number | null;
  error: string;
  durationMs: number;
  at: string;
}

/** Attempts kept in the log per webhook; older ones are pruned as new ones arrive. */
export const DELIVERY_LOG_KEEP = 100;

const OUTBOX_COLUMNS = `id, webhook_id AS webhookId, event, envelope, attempts, next_attempt_at AS nextAttemptAt,
  created_at AS createdAt`;
const DELIVERY_COLUMNS = `id, webhook_id AS webhookId, outbox_id AS outboxId, event, attempt, outcome,
  http_status AS httpStatus, error, duration_ms AS durationMs, at`;

export class OutboxTable {
  private readonly insertStmt;
  private readonly dueStmt;
  private readonly nextDueStmt;
  private readonly rescheduleStmt;
  private readonly removeStmt;
  private readonly pendingOfStmt;
  private readonly logStmt;
  private readonly pruneStmt;
  private readonly logOfStmt;

  constructor(db: DB) {
    this.insertStmt = db.prepare(`INSERT INTO webhook_outbox (webhook_id, event, envelope, attempts, next_attempt_at, created_at)
      VALUES (?, ?, ?, 0, ?, ?)`);
    this.dueStmt = db.prepare(`SELECT ${OUTBOX_COLUMNS} FROM webhook_outbox WHERE next_attempt_at <= ? ORDER BY next_attempt_at, id LIMIT ?`);
    this.nextDueStmt = db.prepare('SELECT MIN(next_attempt_at) FROM webhook_outbox WHERE id NOT IN (SELECT value FROM json_each(?))').pluck();
    this.rescheduleStmt = db.prepare('UPDATE webhook_outbox SET attempts = ?, next_attempt_at = ? WHERE id = ?');
    this.removeStmt = db.prepare('DELETE FROM webhook_outbox WHERE id = ?');
    this.pendingOfStmt = db.prepare('SELECT COUNT(*) FROM webhook_outbox WHERE webhook_id = ?').pluck();
    this.logStmt = db.prepare(`INSERT INTO webhook_deliveries (webhook_id, outbox_id, event, attempt, outcome, http_status,
      error, duration_ms, at) VALUES (@webhookId, @outboxId, @event, @attempt, @outcome, @httpStatus, @error, @durationMs, @at)`);
    this.pruneStmt = db.prepare(`DELETE FROM webhook_deliveries WHERE webhook_id = ? AND id <= (
      SELECT id FROM webhook_deliveries WHERE webhook_id = ? ORDER BY id DESC LIMIT 1 OFFSET ?)`);
    this.logOfStmt = db.prepare(`SELECT ${DELIVERY_COLUMNS} FROM (
      SELECT * FROM webhook_deliveries WHERE webhook_id = ? ORDER BY id DESC LIMIT ?) ORDER BY id`);
  }

  enqueue(webhookId: number, event: string, envelope: string, dueAt: number, createdAt: string): number {
    return Number(this.insertStmt.run(webhookId, event, envelope, dueAt, createdAt).lastInsertRowid);
  }

  /** Items whose next attempt is due at `nowMs`, oldest first. */
  due(nowMs: number, limit: number): OutboxItem[] { return this.dueStmt.all(nowMs, limit) as OutboxItem[]; }

  /** When the earliest item not being sent right now falls due, or null when there is none. */
  nextDueAt(inFlight: readonly number[] = []): number | null {
    return (this.nextDueStmt.get(JSON.stringify(inFlight)) as number | null) ?? null;
  }

  reschedule(id: number, attempts: number, nextAttemptAt: number): void { this.rescheduleStmt.run(attempts, nextAttemptAt, id); }
  remove(id: number): void { this.removeStmt.run(id); }
  pendingOf(webhookId: number): number { return this.pendingOfStmt.get(webhookId) as number; }

  logAttempt(d: Omit<DeliveryRecord, 'id'>): void {
    this.logStmt.run(d);
    this.pruneStmt.run(d.webhookId, d.webhookId, DELIVERY_LOG_KEEP);
  }

  /** The newest attempts of a webhook, in id order. */
  attemptsOf(webhookId: number, limit = DELIVERY_LOG_KEEP): DeliveryRecord[] {
    return this.logOfStmt.all(webhookId, limit) as DeliveryRecord[];
  }
}
