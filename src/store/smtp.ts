// The single SMTP settings row (id 1). Until an admin saves one, defaults are returned.
import type { DB } from './db';

export interface SmtpRecord {
  id: number;
  enabled: boolean;
  server: string;
  port: number;
  useAuth: boolean;
  useTLS: boolean;
  username: string;
  password: string;
  fromEmail: string;
  fromName: string;
}

export const SMTP_DEFAULTS: SmtpRecord = {
  id: 1, enabled: false, server: '', port: 587, useAuth: false, useTLS: false,
  username: '', password: '', fromEmail: '', fromName: 'wgcp',
};

const BOOLS = ['enabled', 'useAuth', 'useTLS'] as const;
/** The row as SQLite gives it: the flags as 0 or 1. */
type SmtpRow = Omit<SmtpRecord, (typeof BOOLS)[number]> & Record<(typeof BOOLS)[number], number>;

export class SmtpTable {
  private readonly getStmt;
  private readonly upsert;

  constructor(db: DB) {
    this.getStmt = db.prepare(`SELECT id, enabled, server, port, use_auth AS useAuth, use_tls AS useTLS, username,
      password, from_email AS fromEmail, from_name AS fromName FROM smtp_settings WHERE id = 1`);
    this.upsert = db.prepare(`INSERT INTO smtp_settings (id, enabled, server, port, use_auth, use_tls, username,
      password, from_email, from_name) VALUES (1, @enabled, @server, @port, @useAuth, @useTLS, @username, @password,
      @fromEmail, @fromName) ON CONFLICT (id) DO UPDATE SET enabled = excluded.enabled, server = excluded.server,
      port = excluded.port, use_auth = excluded.use_auth, use_tls = excluded.use_tls, username = excluded.username,
      password = excluded.password, from_email = excluded.from_email, from_name = excluded.from_name`);
  }

  get(): SmtpRecord {
    const row = this.getStmt.get() as SmtpRow | undefined;
    if (!row) return { ...SMTP_DEFAULTS };
    return { ...row, enabled: row.enabled === 1, useAuth: row.useAuth === 1, useTLS: row.useTLS === 1 };
  }

  save(s: SmtpRecord): void {
    this.upsert.run({ ...s, enabled: s.enabled ? 1 : 0, useAuth: s.useAuth ? 1 : 0, useTLS: s.useTLS ? 1 : 0 });
  }
}
