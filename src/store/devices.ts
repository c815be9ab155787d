// The devices table: one row a provisioned device, each tied to the peer that carries its
// tunnel. Heartbeats write the reported status fields here only when one changed; the time
// seen and the handshake, which change every beat, go to a narrow row (device_seen, keyed by
// the id's 16 bytes) so that a flush of 10,000 reports rewrites few pages (docs/operations.md).
import type { DB } from './db';
import { rowToRecord, selectList } from '../resources/describe';
import { DEVICE, type DeviceRecord } from '../resources/device';

export type { DeviceRecord } from '../resources/device';

export interface HeartbeatReport {
  status?: string;
  state?: string;
  tunnelUp?: boolean;
  lastHandshake?: string | null;
  /** The agent's heartbeat interval in seconds; undefined: not reported (the stored one stays). */
  intervalS?: number;
  seenAt: string;
  source: string;
}

/** Everything a heartbeat answer needs, read in one statement (the hot path). */
export interface HeartbeatView {
  suspended: boolean;
  ip: string;
  privateKey: string | null;
  presharedKey: string;
  allowInternet: boolean;
  serverPublicKey: string;
  endpoint: string;
  address: string;
  dns: string;
  /** The peer's IPv6 address and its server's IPv6 tunnel address with prefix, when the server has one. */
  ip6: string | null;
  address6: string | null;
  /** What the device routes into its tunnel: the peer's own choice, else its server's default (null: by allowInternet). */
  clientAllowedIPs: string | null;
  /** The networks behind the device's peer, as stored ("a, b"; '' none). */
  networks: string;
  /** JSON array text of the device's forwards: `{"protocol","listenPort","targetPort"}` each. */
  forwardsJson: string;
}

const SEEN_KEY = (deviceId: string) => `unhex(replace(${deviceId}, '-', ''))`;
const COLUMNS = selectList(DEVICE);
const FROM = `devices LEFT JOIN device_seen s ON s.id = ${SEEN_KEY('devices.device_id')}`;

type Row = Record<string, unknown>;
const fromRow = (r: Row): DeviceRecord => rowToRecord(DEVICE, r, {});

export class DeviceTable {
  private readonly byId;
  private readonly byHwidStmt;
  private readonly byPeerStmt;
  private readonly all;
  private readonly insertStmt;
  private readonly suspendStmt;
  private readonly provisionedStmt;
  private readonly heartbeatStmt;
  private readonly seenStmt;
  private readonly countStmt;
  private readonly viewStmt;

  constructor(db: DB) {
    this.byId = db.prepare(`SELECT ${COLUMNS} FROM ${FROM} WHERE device_id = ?`);
    this.byHwidStmt = db.prepare(`SELECT ${COLUMNS} FROM ${FROM} WHERE server_id = ? AND hwid = ?`);
    this.byPeerStmt = db.prepare(`SELECT ${COLUMNS} FROM ${FROM} WHERE peer_id = ?`);
    this.all = db.prepare(`SELECT ${COLUMNS} FROM ${FROM} ORDER BY created_at, device_id`);
    this.insertStmt = db.prepare(`INSERT INTO devices (device_id, server_id, peer_id, hwid, provisioned_at, created_at, updated_at)
      VALUES (@deviceId, @serverId, @peerId, @hwid, @provisionedAt, @createdAt, @updatedAt)`);
    this.suspendStmt = db.prepare('UPDATE devices SET suspended = ?, updated_at = ? WHERE device_id = ?');
    this.provisionedStmt = db.prepare('UPDATE devices SET provisioned_at = ?, updated_at = ? WHERE device_id = ?');
    // Fields the device left out of its report keep their stored value; an unchanged report
    // leaves the wide row alone (no page written).
    this.heartbeatStmt = db.prepare(`UPDATE devices SET status = COALESCE(@status, status), state = COALESCE(@state, state),
      tunnel_up = CASE WHEN @tunnelUp IS NULL THEN tunnel_up ELSE @tunnelUp END, last_source = @source,
      heartbeat_interval_s = COALESCE(@intervalS, heartbeat_interval_s)
      WHERE device_id = @deviceId AND (status IS NOT COALESCE(@status, status) OR state IS NOT COALESCE(@state, state)
        OR tunnel_up IS NOT (CASE WHEN @tunnelUp IS NULL THEN tunnel_up ELSE @tunnelUp END) OR last_source IS NOT @source
        OR heartbeat_interval_s IS NOT COALESCE(@intervalS, heartbeat_interval_s))`);
    // A report for a device deleted meanwhile writes nothing (the SELECT finds no device).
    this.seenStmt = db.prepare(`INSERT INTO device_seen (id, seen_ms, handshake_ms)
      SELECT ${SEEN_KEY('@deviceId')}, @seenMs, CASE WHEN @hasHandshake = 1 THEN @handshakeMs ELSE NULL END FROM devices WHERE device_id = @deviceId
      ON CONFLICT (id) DO UPDATE SET seen_ms = excluded.seen_ms,
        handshake_ms = CASE WHEN @hasHandshake = 1 THEN excluded.handshake_ms ELSE handshake_ms END`);
    this.countStmt = db.prepare('SELECT COUNT(*) FROM devices').pluck();
    // Named columns, one literal: the hot path reads no positional tuple.
    this.viewStmt = db.prepare(`SELECT d.suspended = 1 AS suspended, p.ip AS ip, p.private_key AS privateKey, p.preshared_key AS presharedKey,
      p.allow_internet = 1 AS allowInternet, s.public_key AS serverPublicKey, s.endpoint AS endpoint, s.address AS address, s.dns AS dns,
      (SELECT json_group_array(json_object('protocol', protocol, 'listenPort', listen_port, 'targetPort', target_port))
        FROM port_forwards f WHERE f.device_id = d.device_id) AS forwardsJson, p.ip6 AS ip6, s.address6 AS address6,
      COALESCE(p.client_allowed_ips, s.client_allowed_ips) AS clientAllowedIPs, p.networks AS networks
      FROM devices d JOIN peers p ON p.id = d.peer_id JOIN servers s ON s.id = d.server_id WHERE d.device_id = ?`);
  }

  get(deviceId: string): DeviceRecord | undefined {
    const r = this.byId.get(deviceId) as Row | undefined;
    return r && fromRow(r);
  }

  byHwid(serverId: number, hwid: string): DeviceRecord | undefined {
    const r = this.byHwidStmt.get(serverId, hwid) as Row | undefined;
    return r && fromRow(r);
  }

  byPeer(peerId: number): DeviceRecord | undefined {
    const r = this.byPeerStmt.get(peerId) as Row | undefined;
    return r && fromRow(r);
  }

  heartbeatView(deviceId: string): HeartbeatView | undefined {
    const r = this.viewStmt.get(deviceId) as (Omit<HeartbeatView, 'suspended' | 'allowInternet'> & { suspended: number; allowInternet: number }) | undefined;
    if (!r) return undefined;
    return {
      suspended: r.suspended === 1, ip: r.ip, privateKey: r.privateKey, presharedKey: r.presharedKey, allowInternet: r.allowInternet === 1,
      serverPublicKey: r.serverPublicKey, endpoint: r.endpoint, address: r.address, dns: r.dns, forwardsJson: r.forwardsJson, ip6: r.ip6, address6: r.address6,
      clientAllowedIPs: r.clientAllowedIPs, networks: r.networks,
    };
  }

  list(): DeviceRecord[] { return (this.all.all() as Row[]).map(fromRow); }
  count(): number { return this.countStmt.get() as number; }

  insert(d: Pick<DeviceRecord, 'deviceId' | 'serverId' | 'peerId' | 'hwid' | 'provisionedAt' | 'createdAt' | 'updatedAt'>): DeviceRecord {
    this.insertStmt.run(d);
    return this.get(d.deviceId)!;
  }

  setSuspended(deviceId: string, suspended: boolean, now: string): void { this.suspendStmt.run(suspended ? 1 : 0, now, deviceId); }
  markProvisioned(deviceId: string, now: string): void { this.provisionedStmt.run(now, now, deviceId); }

  recordHeartbeat(deviceId: string, r: HeartbeatReport): void {
    this.heartbeatStmt.run({
      deviceId,
      status: r.status ?? null,
      state: r.state ?? null,
      tunnelUp: r.tunnelUp === undefined ? null : r.tunnelUp ? 1 : 0,
      intervalS: r.intervalS ?? null,
      source: r.source,
    });
    this.seenStmt.run({
      deviceId,
      seenMs: Date.parse(r.seenAt),
      hasHandshake: r.lastHandshake === undefined ? 0 : 1,
      handshakeMs: r.lastHandshake == null ? null : Date.parse(r.lastHandshake),
    });
  }
}
