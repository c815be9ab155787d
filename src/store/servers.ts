// The servers table. Records come out camel-cased with real booleans and numbers.
import { nextIdOf, type DB } from './db';
import { insertSql, rowToRecord, selectList, withInitials, toColumns as columnsOf, updateSql } from '../resources/describe';
import { SERVER, type ServerRecord } from '../resources/server';

export type { ServerMode, ServerRecord } from '../resources/server';

export type NewServer = Omit<ServerRecord, 'id'>;

const COLUMNS = selectList(SERVER);
type Row = Record<string, unknown>;
const fromRow = (row: Row): ServerRecord => rowToRecord(SERVER, row, {});
const toColumns = (s: Partial<ServerRecord>) => columnsOf(SERVER, s);

export class ServerTable {
  private readonly all;
  private readonly byId;
  private readonly insertStmt;
  private readonly updateStmt;
  private readonly deleteStmt;
  private readonly nextIdQuery: () => number;
  private readonly countStmt;

  constructor(db: DB) {
    this.all = db.prepare(`SELECT ${COLUMNS} FROM servers ORDER BY id`);
    this.byId = db.prepare(`SELECT ${COLUMNS} FROM servers WHERE id = ?`);
    this.insertStmt = db.prepare(insertSql(SERVER));
    this.updateStmt = db.prepare(updateSql(SERVER));
    this.deleteStmt = db.prepare('DELETE FROM servers WHERE id = ?');
    this.countStmt = db.prepare('SELECT COUNT(*) AS n FROM servers');
    this.nextIdQuery = nextIdOf(db, 'servers');
  }

  /** The id the next insert would get: ids are never reused (AUTOINCREMENT). */
  nextId(): number { return this.nextIdQuery(); }

  list(): ServerRecord[] { return (this.all.all() as Row[]).map(fromRow); }
  get(id: number): ServerRecord | undefined {
    const row = this.byId.get(id) as Row | undefined;
    return row && fromRow(row);
  }
  count(): number { return (this.countStmt.get() as { n: number }).n; }

  /** An id given (from nextId(), planned before the commit) is kept; without one SQLite picks the next. */
  insert(s: NewServer & { id?: number }): ServerRecord {
    const id = Number(this.insertStmt.run({ ...toColumns(s), id: s.id ?? null }).lastInsertRowid);
    return { ...withInitials(SERVER, s), id };
  }

  update(s: ServerRecord): void { this.updateStmt.run(toColumns(s)); }
  delete(id: number): void { this.deleteStmt.run(id); }
}
