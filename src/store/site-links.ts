// Site links: this router joined another wgcp router as its peer (`wgcp join`). Each is one
// WireGuard interface of its own with that router as its only peer, holding the key pair
// made here (the private key never left this router), and the routes to the other side.
import type { DB } from './db';
import { splitList } from '../wg/client-options';

// The record is described with its rules and schema in resources/site-link.ts.
import type { SiteLinkRecord } from '../resources/site-link';
export type { SiteLinkRecord };

const COLUMNS = `id, name, interface, private_key AS privateKey, public_key AS publicKey, address, address6,
  peer_public_key AS peerPublicKey, preshared_key AS presharedKey, endpoint, routes,
  reachable_from AS reachableFrom, created_at AS createdAt`;

type Row = Omit<SiteLinkRecord, 'routes' | 'reachableFrom'> & { routes: string; reachableFrom: string };
const fromRow = (r: Row): SiteLinkRecord => ({ ...r, routes: splitList(r.routes), reachableFrom: r.reachableFrom === 'lan' ? 'lan' : splitList(r.reachableFrom) });
const toRow = (l: SiteLinkRecord) => ({ ...l, routes: l.routes.join(', '), reachableFrom: l.reachableFrom === 'lan' ? 'lan' : l.reachableFrom.join(', ') });

export class SiteLinkTable {
  private readonly byId;
  private readonly all;
  private readonly insertStmt;
  private readonly deleteStmt;
  private readonly reachStmt;
  private readonly nextIdStmt;

  constructor(db: DB) {
    this.byId = db.prepare(`SELECT ${COLUMNS} FROM site_links WHERE id = ?`);
    this.all = db.prepare(`SELECT ${COLUMNS} FROM site_links ORDER BY id`);
    this.insertStmt = db.prepare(`INSERT INTO site_links (id, name, interface, private_key, public_key, address, address6,
      peer_public_key, preshared_key, endpoint, routes, reachable_from, created_at) VALUES (@id, @name, @interface, @privateKey, @publicKey,
      @address, @address6, @peerPublicKey, @presharedKey, @endpoint, @routes, @reachableFrom, @createdAt)`);
    this.reachStmt = db.prepare('UPDATE site_links SET reachable_from = @reachableFrom WHERE id = @id');
    this.deleteStmt = db.prepare('DELETE FROM site_links WHERE id = ?');
    this.nextIdStmt = db.prepare('SELECT COALESCE(MAX(id), 0) + 1 FROM site_links').pluck();
  }

  get(id: number): SiteLinkRecord | undefined {
    const r = this.byId.get(id) as Row | undefined;
    return r && fromRow(r);
  }

  list(): SiteLinkRecord[] { return (this.all.all() as Row[]).map(fromRow); }
  nextId(): number { return this.nextIdStmt.get() as number; }
  insert(l: SiteLinkRecord): void { this.insertStmt.run(toRow(l)); }
  /** The link's filter (reachableFrom): the one field a link changes in place. */
  setReach(l: SiteLinkRecord): boolean { return this.reachStmt.run({ id: l.id, reachableFrom: toRow(l).reachableFrom }).changes > 0; }
  delete(id: number): boolean { return this.deleteStmt.run(id).changes > 0; }
}
