// The servers table. Records come out camel-cased with real booleans and numbers.
import { nextIdOf, type DB } from './db';

export type ServerMode = 'forward' | 'standalone';

export interface ServerRecord {
  id: number;
  name: string;
  endpoint: string;
  mode: ServerMode;
  interface: string;
  address: string;
  /** The IPv6 tunnel address with its prefix (RFC 5952), or null for an IPv4-only server. */
  address6: string | null;
  listenPort: number;
  dns: string;
  mtu: number | null;
  privateKey: string;
  publicKey: string;
  createdAt: string;
  updatedAt: string;
}

export type NewServer = Omit<ServerRecord, 'id'>;

const COLUMNS = `id, name, endpoint, mode, interface, address, address6, listen_port AS listenPort, dns, mtu,
  private_key AS privateKey, public_key AS publicKey, created_at AS createdAt, updated_at AS updatedAt`;

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
    this.insertStmt = db.prepare(`INSERT INTO servers (id, name, endpoint, mode, interface, address, address6, listen_port, dns, mtu,
      private_key, public_key, created_at, updated_at) VALUES (@id, @name, @endpoint, @mode, @interface, @address, @address6, @listenPort,
      @dns, @mtu, @privateKey, @publicKey, @createdAt, @updatedAt)`);
    this.updateStmt = db.prepare(`UPDATE servers SET name = @name, endpoint = @endpoint, mode = @mode, interface = @interface,
      address = @address, address6 = @address6, listen_port = @listenPort, dns = @dns, mtu = @mtu, updated_at = @updatedAt WHERE id = @id`);
    this.deleteStmt = db.prepare('DELETE FROM servers WHERE id = ?');
    this.countStmt = db.prepare('SELECT COUNT(*) AS n FROM servers');
    this.nextIdQuery = nextIdOf(db, 'servers');
  }

  /** The id the next insert would get: ids are never reused (AUTOINCREMENT). */
  nextId(): number { return this.nextIdQuery(); }

  list(): ServerRecord[] { return this.all.all() as ServerRecord[]; }
  get(id: number): ServerRecord | undefined { return this.byId.get(id) as ServerRecord | undefined; }
  count(): number { return (this.countStmt.get() as { n: number }).n; }

  /** An id given (from nextId(), planned before the commit) is kept; without one SQLite picks the next. */
  insert(s: NewServer & { id?: number }): ServerRecord {
    const id = Number(this.insertStmt.run({ ...s, id: s.id ?? null }).lastInsertRowid);
    return { ...s, id };
  }

  update(s: ServerRecord): void { this.updateStmt.run(s); }
  delete(id: number): void { this.deleteStmt.run(id); }
}
