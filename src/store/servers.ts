// The servers table. Records come out camel-cased with real booleans and numbers.
import { nextIdOf, type DB } from './db';
import { DEFAULT_KEEPALIVE, routesOf, routesText, type ClientRoutes } from '../wg/client-options';
import { reachOf, reachText, type NetworkReach } from './peers';

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
  /** The client's AllowedIPs by default (null: by each peer's allowInternet). */
  clientAllowedIPs?: ClientRoutes | null;
  /** The client's keepalive by default, in seconds (0: off; absent: 25). */
  persistentKeepalive?: number;
  /** lanAccess given to a new peer that does not say (absent: none). */
  lanAccess?: NetworkReach;
  privateKey: string;
  publicKey: string;
  createdAt: string;
  updatedAt: string;
}

export type NewServer = Omit<ServerRecord, 'id'>;

const COLUMNS = `id, name, endpoint, mode, interface, address, address6, listen_port AS listenPort, dns, mtu,
  client_allowed_ips AS clientAllowedIPs, client_keepalive AS persistentKeepalive, lan_access AS lanAccess,
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
      client_allowed_ips, client_keepalive, lan_access,
      private_key, public_key, created_at, updated_at) VALUES (@id, @name, @endpoint, @mode, @interface, @address, @address6, @listenPort,
      @dns, @mtu, @clientAllowedIPs, @persistentKeepalive, @lanAccess, @privateKey, @publicKey, @createdAt, @updatedAt)`);
    this.updateStmt = db.prepare(`UPDATE servers SET name = @name, endpoint = @endpoint, mode = @mode, interface = @interface,
      address = @address, address6 = @address6, listen_port = @listenPort, dns = @dns, mtu = @mtu,
      client_allowed_ips = @clientAllowedIPs, client_keepalive = @persistentKeepalive, lan_access = @lanAccess, updated_at = @updatedAt WHERE id = @id`);
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
    return { ...s, id };
  }

  update(s: ServerRecord): void { this.updateStmt.run(toColumns(s)); }
  delete(id: number): void { this.deleteStmt.run(id); }
}

type Row = Omit<ServerRecord, 'clientAllowedIPs' | 'lanAccess'> & { clientAllowedIPs: string | null; lanAccess: string };

const fromRow = (row: Row): ServerRecord => ({ ...row, clientAllowedIPs: routesOf(row.clientAllowedIPs), lanAccess: reachOf(row.lanAccess) });
const toColumns = <T extends NewServer>(s: T) =>
  ({ ...s, clientAllowedIPs: routesText(s.clientAllowedIPs), persistentKeepalive: s.persistentKeepalive ?? DEFAULT_KEEPALIVE, lanAccess: reachText(s.lanAccess) });
