// The webhooks table. subscribed_actions is stored as JSON text, custom_headers as the
// JSON object text whose UTF-8 bytes the API shows as an integer array.
import type { DB } from './db';

export type WebhookTemplate = 'default' | 'slack' | 'discord' | 'custom';

export interface WebhookRecord {
  id: number;
  serverId: number;
  name: string;
  url: string;
  isEnabled: boolean;
  isGlobal: boolean;
  verifySSL: boolean;
  subscribedActions: number[];
  template: WebhookTemplate;
  defaultPayload: string;
  customBody: string;
  customHeaders: string;
  secret: string;
  createdAt: string;
  updatedAt: string;
}

export type NewWebhook = Omit<WebhookRecord, 'id'>;

const COLUMNS = `id, server_id AS serverId, name, url, is_enabled AS isEnabled, is_global AS isGlobal,
  verify_ssl AS verifySSL, subscribed_actions AS subscribedActions, template, default_payload AS defaultPayload,
  custom_body AS customBody, custom_headers AS customHeaders, secret, created_at AS createdAt, updated_at AS updatedAt`;

interface Row extends Omit<WebhookRecord, 'isEnabled' | 'isGlobal' | 'verifySSL' | 'subscribedActions'> {
  isEnabled: number; isGlobal: number; verifySSL: number; subscribedActions: string;
}

const fromRow = (r: Row): WebhookRecord => ({
  ...r, isEnabled: r.isEnabled === 1, isGlobal: r.isGlobal === 1, verifySSL: r.verifySSL === 1,
  subscribedActions: JSON.parse(r.subscribedActions) as number[],
});

const toColumns = (w: NewWebhook | WebhookRecord) => ({
  ...w, isEnabled: w.isEnabled ? 1 : 0, isGlobal: w.isGlobal ? 1 : 0, verifySSL: w.verifySSL ? 1 : 0,
  subscribedActions: JSON.stringify(w.subscribedActions),
});

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
    this.insertStmt = db.prepare(`INSERT INTO webhooks (server_id, name, url, is_enabled, is_global, verify_ssl,
      subscribed_actions, template, default_payload, custom_body, custom_headers, secret, created_at, updated_at)
      VALUES (@serverId, @name, @url, @isEnabled, @isGlobal, @verifySSL, @subscribedActions, @template,
      @defaultPayload, @customBody, @customHeaders, @secret, @createdAt, @updatedAt)`);
    this.updateStmt = db.prepare(`UPDATE webhooks SET name = @name, url = @url, is_enabled = @isEnabled,
      is_global = @isGlobal, verify_ssl = @verifySSL, subscribed_actions = @subscribedActions, template = @template,
      default_payload = @defaultPayload, custom_body = @customBody, custom_headers = @customHeaders,
      secret = @secret, updated_at = @updatedAt WHERE id = @id`);
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
    const id = Number(this.insertStmt.run(toColumns(w)).lastInsertRowid);
    return { ...w, id };
  }

  update(w: WebhookRecord): void { this.updateStmt.run(toColumns(w)); }
  delete(id: number): void { this.deleteStmt.run(id); }
}
