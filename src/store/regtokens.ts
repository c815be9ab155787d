// Registration tokens: one-time UUIDs an admin makes for a server. Whether a provisioning
// wins the token is decided by one atomic UPDATE (`consume`), so concurrent requests for
// the same token cannot both succeed.
import type { DB } from './db';
import { insertSql, selectList, toColumns } from '../resources/describe';
import { REGTOKEN, type RegTokenRecord } from '../resources/regtoken';

export type { RegTokenRecord } from '../resources/regtoken';

const COLUMNS = selectList(REGTOKEN);

export class RegTokenTable {
  private readonly byToken;
  private readonly byServer;
  private readonly all;
  private readonly insertStmt;
  private readonly deleteStmt;
  private readonly consumeStmt;
  private readonly deviceStmt;

  constructor(db: DB) {
    this.byToken = db.prepare(`SELECT ${COLUMNS} FROM registration_tokens WHERE token = ?`);
    this.byServer = db.prepare(`SELECT ${COLUMNS} FROM registration_tokens WHERE server_id = ? ORDER BY created_at, token`);
    this.all = db.prepare(`SELECT ${COLUMNS} FROM registration_tokens ORDER BY server_id, created_at, token`);
    this.insertStmt = db.prepare(insertSql(REGTOKEN));
    this.deleteStmt = db.prepare('DELETE FROM registration_tokens WHERE token = ?');
    this.consumeStmt = db.prepare(`UPDATE registration_tokens SET used_at = ?
      WHERE token = ? AND used_at IS NULL AND expires_at > ?`);
    this.deviceStmt = db.prepare('UPDATE registration_tokens SET device_id = ? WHERE token = ?');
  }

  get(token: string): RegTokenRecord | undefined { return this.byToken.get(token) as RegTokenRecord | undefined; }
  listByServer(serverId: number): RegTokenRecord[] { return this.byServer.all(serverId) as RegTokenRecord[]; }
  list(): RegTokenRecord[] { return this.all.all() as RegTokenRecord[]; }

  insert(t: Omit<RegTokenRecord, 'usedAt' | 'deviceId'>): RegTokenRecord {
    this.insertStmt.run(toColumns(REGTOKEN, t));
    return { ...t, usedAt: null, deviceId: null };
  }

  delete(token: string): boolean { return this.deleteStmt.run(token).changes > 0; }

  /** Marks the token used if it is unused and unexpired at `now`; true when this call won it. */
  consume(token: string, now: string): boolean { return this.consumeStmt.run(now, token, now).changes === 1; }

  setDevice(token: string, deviceId: string): void { this.deviceStmt.run(deviceId, token); }
}
