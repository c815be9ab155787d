// The webhooks table, its rows mapped by the webhook's description (resources/webhook.ts):
// subscribed_actions is stored as JSON text, custom_headers as the JSON object text whose
// UTF-8 bytes the API shows as an integer array.
import type { DB } from './db';
import { insertSql, rowToRecord, selectList, toColumns as columnsOf, updateSql } from '../resources/describe';
import { WEBHOOK, type WebhookRecord } from '../resources/webhook';

export type { WebhookRecord, WebhookTemplate } from '../resources/webhook';

export type NewWebhook = Omit<WebhookRecord, 'id'>;

const COLUMNS = selectList(WEBHOOK);
type Row = Record<string, unknown>;
const fromRow = (r: Row): WebhookRecord => rowToRecord(WEBHOOK, r, {});

export class WebhookTable {
  private readonly byId;
  private readonly byServer;
  private readonly relevant;
  private readonly insertStmt;
  private readonly updateStmt;
  private readonly deleteStmt;
  private readonly countStmt;

  constructor(db: DB) {
    this.byId = db.prepare(`SELECT ${COLUMNS} FROM webhooks WHERE id = ?`);
    this.byServer = db.prepare(`SELECT ${COLUMNS} FROM webhooks WHERE server_id = ? ORDER BY id`);
    this.relevant = db.prepare(`SELECT ${COLUMNS} FROM webhooks WHERE is_enabled = 1 AND (server_id = ? OR is_global = 1) ORDER BY id`);
    this.insertStmt = db.prepare(insertSql(WEBHOOK));
    this.updateStmt = db.prepare(updateSql(WEBHOOK));
    this.deleteStmt = db.prepare('DELETE FROM webhooks WHERE id = ?');
    this.countStmt = db.prepare('SELECT COUNT(*) AS n FROM webhooks WHERE (? IS NULL OR server_id = ?)');
  }

  get(id: number): WebhookRecord | undefined {
    const r = this.byId.get(id) as Row | undefined;
    return r && fromRow(r);
  }

  listByServer(serverId: number): WebhookRecord[] { return (this.byServer.all(serverId) as Row[]).map(fromRow); }

  /** Enabled webhooks that hear events of this server: its own and the global ones. */
  listenersOf(serverId: number): WebhookRecord[] { return (this.relevant.all(serverId) as Row[]).map(fromRow); }

  count(serverId: number | null): number { return (this.countStmt.get(serverId, serverId) as { n: number }).n; }

  insert(w: NewWebhook): WebhookRecord {
    const id = Number(this.insertStmt.run({ ...columnsOf(WEBHOOK, w), id: null }).lastInsertRowid);
    return { ...w, id };
  }

  update(w: WebhookRecord): void { this.updateStmt.run(columnsOf(WEBHOOK, w)); }
  delete(id: number): void { this.deleteStmt.run(id); }
}
