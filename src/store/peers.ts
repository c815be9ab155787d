// The peers table and its allowAccess pairs (peer_access). A record carries its
// allowAccess ids so that callers never see one without the other.
import { nextIdOf, type DB } from './db';
import { FreeAddresses, type Freed } from './free-addresses';
import type { ServerRecord } from './servers';
import { scheduleOf, type Schedule } from '../schedule/rules';
import { splitList } from '../wg/client-options';
import { parseIpv4 } from '../net/ipv4';
import { insertSql, rowToRecord, withInitials, selectList, toColumns as columnsOf, updateSql } from '../resources/describe';
import { canonicalReasons, enabledBy } from '../peer-state';
import { PEER, parseReasons, reachOf, type NewPeer, type PeerRecord } from '../resources/peer';

export { DISABLE_REASONS, parseReasons, reachOf, reachText, type DisableReason, type NetworkReach, type NewPeer, type PeerRecord } from '../resources/peer';


type LimitFields = 'downloadLimitMbps' | 'uploadLimitMbps';
/** What the kernel and the packet filter need of a peer; the kernel plane keeps only this. */
export type KernelPeer = Pick<PeerRecord, 'id' | 'ip' | 'ip6' | 'publicKey' | 'presharedKey' | 'allowAccess' | 'allowInternet' | 'enabled'>
  & Partial<Pick<PeerRecord, LimitFields | 'networks' | 'lanAccess' | 'reachableFrom'>>;

/** What a peer list may be sorted by (the API's field names) and the SQL that orders it. */
export const PEER_SORTS = {
  id: 'id',
  name: 'name COLLATE NOCASE',
  email: 'email COLLATE NOCASE',
  ip: 'wgcp_ipv4_number(ip)',
  enabled: 'enabled',
  dataLimitGB: 'data_limit_gb',
  currentDataUsageBytes: 'COALESCE((SELECT usage_bytes FROM peer_usage WHERE peer_id = peers.id), 0)',
  // Never expiring sorts after every date.
  expiresAt: "COALESCE(expires_at, '9999')",
  createdAt: 'created_at',
  latestHandshake: '(SELECT latest_handshake FROM peer_usage WHERE peer_id = peers.id)',
} as const;
export type PeerSort = keyof typeof PEER_SORTS;

/** A page of a server's peers: `q` is found in the name, e-mail, address or public key. */
export interface PeerQuery { q: string; sort: PeerSort; order: 'asc' | 'desc'; limit: number; offset: number }

const COLUMNS = selectList(PEER);
type Row = Record<string, unknown> & { id: number };

/** `enabled` is stored beside the reasons (indexes and triggers read it) and always follows them. */
function toColumns(p: Partial<PeerRecord>) {
  return { ...columnsOf(PEER, p), enabled: enabledBy(canonicalReasons(p.disabledReasons ?? [])) ? 1 : 0 };
}

export class PeerTable {
  private readonly byId;
  private readonly byServer;
  private readonly byServerPage;
  private readonly accessOf;
  private readonly accessOfServer;
  private readonly kernelByServer;
  private readonly insertStmt;
  private readonly updateStmt;
  private readonly nextIdQuery: () => number;
  private readonly deleteStmt;
  private readonly scheduledStmt;
  private readonly networksStmt;
  private readonly clearAccess;
  private readonly addAccess;
  private readonly ipsOfServer;
  private readonly countsStmt;
  private readonly ipHolder;
  private readonly ip6Holder;
  private readonly ip6sOfServer;
  private readonly keyHolder;
  private readonly serverOfStmt;
  private readonly searchStmts = new Map<string, ReturnType<DB['prepare']>>();
  private readonly searchCount;
  private readonly accessOfIds;
  private readonly addressesOf;
  private readonly expiredStmt;
  /** Where new addresses come from: the lowest free one without reading every used one. */
  private readonly free: FreeAddresses;

  constructor(private readonly db: DB) {
    this.byId = db.prepare(`SELECT ${COLUMNS} FROM peers WHERE id = ?`);
    this.byServer = db.prepare(`SELECT ${COLUMNS} FROM peers WHERE server_id = ? ORDER BY id`);
    this.byServerPage = db.prepare(`SELECT ${COLUMNS} FROM peers WHERE server_id = ? ORDER BY id LIMIT ? OFFSET ?`);
    this.accessOf = db.prepare('SELECT target_id AS t FROM peer_access WHERE peer_id = ? ORDER BY target_id');
    this.accessOfServer = db.prepare(`SELECT a.peer_id AS p, a.target_id AS t FROM peer_access a
      JOIN peers ON peers.id = a.peer_id WHERE peers.server_id = ? ORDER BY a.peer_id, a.target_id`).raw();
    this.kernelByServer = db.prepare(`SELECT id, ip, ip6, public_key, preshared_key, allow_internet, enabled,
      download_limit_mbps, upload_limit_mbps, networks, lan_access, reachable_from
      FROM peers WHERE server_id = ? ORDER BY id`).raw();
    this.insertStmt = db.prepare(insertSql(PEER));
    this.updateStmt = db.prepare(updateSql(PEER));
    this.deleteStmt = db.prepare('DELETE FROM peers WHERE id = ?');
    this.networksStmt = db.prepare("SELECT id, networks FROM peers WHERE networks <> ''").raw();
    this.scheduledStmt = db.prepare('SELECT id, schedule, disabled_reasons FROM peers WHERE schedule IS NOT NULL').raw();
    this.nextIdQuery = nextIdOf(db, 'peers');
    this.clearAccess = db.prepare('DELETE FROM peer_access WHERE peer_id = ?');
    this.addAccess = db.prepare('INSERT OR IGNORE INTO peer_access (peer_id, target_id) VALUES (?, ?)');
    this.ipsOfServer = db.prepare('SELECT ip FROM peers WHERE server_id = ?').pluck();
    this.ipHolder = db.prepare('SELECT id FROM peers WHERE server_id = ? AND ip = ?').pluck();
    this.ip6Holder = db.prepare('SELECT id FROM peers WHERE server_id = ? AND ip6 = ?').pluck();
    this.ip6sOfServer = db.prepare('SELECT ip6 FROM peers WHERE server_id = ? AND ip6 IS NOT NULL').pluck();
    this.keyHolder = db.prepare('SELECT id FROM peers WHERE server_id = ? AND public_key = ?').pluck();
    this.serverOfStmt = db.prepare('SELECT server_id FROM peers WHERE id = ?').pluck();
    this.expiredStmt = db.prepare('SELECT id FROM peers WHERE expires_at IS NOT NULL AND expires_at <= ? ORDER BY id').pluck();
    this.addressesOf = db.prepare('SELECT server_id AS serverId, ip, ip6 FROM peers WHERE id = ?');
    this.free = new FreeAddresses(db, (s, ip) => this.idByIp(s, ip) !== undefined, (s, ip6) => this.idByIp6(s, ip6) !== undefined);
    this.countsStmt = db.prepare(`SELECT COUNT(*) AS total, COALESCE(SUM(enabled), 0) AS enabled,
      COALESCE(SUM((SELECT usage_bytes FROM peer_usage WHERE peer_id = peers.id)), 0) AS usage FROM peers WHERE (? IS NULL OR server_id = ?)`);
    // Addresses sort as numbers (10.0.0.9 before 10.0.0.10), not as text.
    db.function('wgcp_ipv4_number', { deterministic: true }, (ip: unknown) => parseIpv4(String(ip)) ?? 0);
    this.searchCount = db.prepare(`SELECT COUNT(*) FROM peers WHERE ${SEARCH_WHERE}`).pluck();
    this.accessOfIds = db.prepare(`SELECT peer_id AS p, target_id AS t FROM peer_access
      WHERE peer_id IN (SELECT value FROM json_each(?)) ORDER BY peer_id, target_id`);
  }

  /** Every peer that has networks behind it, with them (the overlap check of a peer's networks). */
  networksHeld(): Array<{ id: number; networks: string[] }> {
    return (this.networksStmt.all() as Array<[number, string]>).map(([id, text]) => ({ id, networks: splitList(text) }));
  }

  get(id: number): PeerRecord | undefined {
    const row = this.byId.get(id) as Row | undefined;
    if (!row) return undefined;
    return fromRow(row, (this.accessOf.all(id) as { t: number }[]).map((r) => r.t));
  }

  listByServer(serverId: number, page?: { limit: number; offset: number }): PeerRecord[] {
    const rows = (page ? this.byServerPage.all(serverId, page.limit, page.offset) : this.byServer.all(serverId)) as Row[];
    const access = this.accessByPeer(serverId);
    return rows.map((r) => fromRow(r, access.get(r.id) ?? []));
  }

  /** A server's peers as the kernel holds them, nothing more: start-up reads 10,000 of these. */
  kernelPeersOf(serverId: number): KernelPeer[] {
    const access = this.accessByPeer(serverId);
    type Raw = [number, string, string | null, string, string, number, number, number | null, number | null, string, string, string];
    return (this.kernelByServer.all(serverId) as Raw[]).map(([id, ip, ip6, publicKey, presharedKey, allowInternet, enabled, downloadLimitMbps, uploadLimitMbps, networks, lanAccess, reachableFrom]) => ({
      id, ip, ip6, publicKey, presharedKey, allowAccess: access.get(id) ?? [], allowInternet: allowInternet === 1, enabled: enabled === 1,
      downloadLimitMbps, uploadLimitMbps, networks: splitList(networks), lanAccess: reachOf(lanAccess), reachableFrom: reachOf(reachableFrom),
    }));
  }

  private accessByPeer(serverId: number): Map<number, number[]> {
    const access = new Map<number, number[]>();
    for (const [p, t] of this.accessOfServer.all(serverId) as [number, number][]) {
      const list = access.get(p);
      if (list) list.push(t); else access.set(p, [t]);
    }
    return access;
  }

  /** One page of a server's peers, searched and sorted in SQL, with the count of all that match. */
  search(serverId: number, query: PeerQuery): { rows: PeerRecord[]; total: number } {
    const key = `${query.sort} ${query.order}`;
    let stmt = this.searchStmts.get(key);
    if (!stmt) {
      const dir = query.order === 'desc' ? 'DESC' : 'ASC';
      stmt = this.db.prepare(`SELECT ${COLUMNS} FROM peers WHERE ${SEARCH_WHERE}
        ORDER BY ${PEER_SORTS[query.sort]} ${dir}, id ${dir} LIMIT @limit OFFSET @offset`);
      this.searchStmts.set(key, stmt);
    }
    const like = `%${query.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const where = { server: serverId, q: query.q, like };
    const rows = stmt.all({ ...where, limit: query.limit, offset: query.offset }) as Row[];
    const total = this.searchCount.get(where) as number;
    const access = new Map<number, number[]>();
    for (const { p, t } of this.accessOfIds.all(JSON.stringify(rows.map((r) => r.id))) as { p: number; t: number }[]) {
      const list = access.get(p);
      if (list) list.push(t); else access.set(p, [t]);
    }
    return { rows: rows.map((r) => fromRow(r, access.get(r.id) ?? [])), total };
  }

  /** Every peer with a schedule, its schedule and whether `schedule` holds it now (start-up's one read). */
  scheduled(): Array<{ id: number; schedule: Schedule; closed: boolean }> {
    return (this.scheduledStmt.all() as Array<[number, string, string]>).map(([id, text, reasons]) => ({
      id, schedule: scheduleOf(text)!, closed: parseReasons(reasons).includes('schedule'),
    }));
  }

  /** Peers whose expiresAt (UTC, same format) is at or before `now`. */
  expiredAt(nowIso: string): number[] { return this.expiredStmt.all(nowIso) as number[]; }

  idByIp(serverId: number, ip: string): number | undefined { return this.ipHolder.get(serverId, ip) as number | undefined; }
  idByPublicKey(serverId: number, key: string): number | undefined { return this.keyHolder.get(serverId, key) as number | undefined; }
  serverOf(id: number): number | undefined { return this.serverOfStmt.get(id) as number | undefined; }

  usedIps(serverId: number): string[] { return this.ipsOfServer.all(serverId) as string[]; }
  idByIp6(serverId: number, ip6: string): number | undefined { return this.ip6Holder.get(serverId, ip6) as number | undefined; }
  usedIp6s(serverId: number): string[] { return this.ip6sOfServer.all(serverId) as string[]; }

  /** The lowest free host address of the server's subnet (its own left out), or null when it is full. */
  lowestFreeIp(server: ServerRecord): string | null { return this.free.lowestIp(server); }
  /** The lowest free address of the server's IPv6 prefix (its own left out), or null. */
  lowestFreeIp6(server: ServerRecord): string | null { return this.free.lowestIp6(server); }

  counts(serverId: number | null): { total: number; enabled: number; usage: number } {
    return this.countsStmt.get(serverId, serverId) as { total: number; enabled: number; usage: number };
  }

  /** An id given (from nextId(), planned before the commit) is kept; without one SQLite picks the next. */
  insert(p: NewPeer & { id?: number }): PeerRecord {
    const id = Number(this.free.ownWrite(() => this.insertStmt.run({ ...toColumns(p), id: p.id ?? null })).lastInsertRowid);
    this.setAccess(id, p.allowAccess ?? []);
    return { ...withInitials(PEER, p), id };
  }

  /** The id the next insert would get: ids are never reused (AUTOINCREMENT), not even a deleted last one's. */
  nextId(): number { return this.nextIdQuery(); }

  update(p: PeerRecord): void {
    const was = this.addressesOf.get(p.id) as Freed | undefined;
    const freed = was && { serverId: was.serverId, ip: was.ip !== p.ip ? was.ip : null, ip6: was.ip6 !== p.ip6 ? was.ip6 : null };
    this.free.ownWrite(() => this.updateStmt.run(toColumns(p)), freed);
    this.setAccess(p.id, p.allowAccess);
  }

  delete(id: number): void {
    const was = this.addressesOf.get(id) as Freed | undefined;
    this.free.ownWrite(() => this.deleteStmt.run(id), was);
  }

  private setAccess(id: number, targets: number[]): void {
    this.clearAccess.run(id);
    for (const t of targets) this.addAccess.run(id, t);
  }
}

const SEARCH_WHERE = `server_id = @server AND (@q = '' OR name LIKE @like ESCAPE '\\' OR email LIKE @like ESCAPE '\\'
  OR ip LIKE @like ESCAPE '\\' OR public_key LIKE @like ESCAPE '\\')`;


function fromRow(row: Row, allowAccess: number[]): PeerRecord {
  return rowToRecord(PEER, row, { allowAccess });
}
