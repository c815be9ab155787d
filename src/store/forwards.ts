// Device port forwards. A record names its device; the kernel's view (PortForward) adds
// the server and the device's tunnel address, joined from the device's peer.
import { nextIdOf, type DB } from './db';
import { insertSql, selectList } from '../resources/describe';
import { FORWARD, type ForwardProtocol, type ForwardRecord } from '../resources/forward';

export type { ForwardProtocol, ForwardRecord } from '../resources/forward';

const COLUMNS = selectList(FORWARD);
const KERNEL_COLUMNS = `f.id AS id, d.server_id AS serverId, f.protocol AS protocol, f.listen_port AS listenPort,
  p.ip AS targetIp, p.ip6 AS targetIp6, f.target_port AS targetPort`;
const KERNEL_JOIN = 'port_forwards f JOIN devices d ON d.device_id = f.device_id JOIN peers p ON p.id = d.peer_id';

export class ForwardTable {
  private readonly byId;
  private readonly byDevice;
  private readonly holderStmt;
  private readonly insertStmt;
  private readonly deleteStmt;
  private readonly nextIdQuery: () => number;
  private readonly kernelById;
  private readonly kernelByServer;
  private readonly kernelByPeer;

  constructor(db: DB) {
    this.byId = db.prepare(`SELECT ${COLUMNS} FROM port_forwards WHERE id = ?`);
    this.byDevice = db.prepare(`SELECT ${COLUMNS} FROM port_forwards WHERE device_id = ? ORDER BY protocol, listen_port`);
    this.holderStmt = db.prepare('SELECT id FROM port_forwards WHERE protocol = ? AND listen_port = ?').pluck();
    this.insertStmt = db.prepare(insertSql(FORWARD));
    this.nextIdQuery = nextIdOf(db, 'port_forwards');
    this.deleteStmt = db.prepare('DELETE FROM port_forwards WHERE id = ?');
    this.kernelById = db.prepare(`SELECT ${KERNEL_COLUMNS} FROM ${KERNEL_JOIN} WHERE f.id = ?`);
    this.kernelByServer = db.prepare(`SELECT ${KERNEL_COLUMNS} FROM ${KERNEL_JOIN} WHERE d.server_id = ? ORDER BY f.id`);
    this.kernelByPeer = db.prepare(`SELECT ${KERNEL_COLUMNS} FROM ${KERNEL_JOIN} WHERE d.peer_id = ? ORDER BY f.id`);
  }

  get(id: number): ForwardRecord | undefined { return this.byId.get(id) as ForwardRecord | undefined; }

  /** A device's forwards, sorted by protocol then listenPort (the forwards_hash order). */
  listByDevice(deviceId: string): ForwardRecord[] { return this.byDevice.all(deviceId) as ForwardRecord[]; }

  /** The id of the forward that holds this protocol and router port, if any. */
  holder(protocol: ForwardProtocol, listenPort: number): number | undefined {
    return this.holderStmt.get(protocol, listenPort) as number | undefined;
  }

  /** An id given (from nextId(), planned before the commit) is kept. */
  insert(f: Omit<ForwardRecord, 'id'> & { id?: number }): ForwardRecord {
    const id = Number(this.insertStmt.run({ ...f, id: f.id ?? null }).lastInsertRowid);
    return { ...f, id };
  }

  delete(id: number): void { this.deleteStmt.run(id); }

  /** The id the next insert would get (ids are never reused when the table is AUTOINCREMENT; else one past the largest). */
  nextId(): number { return this.nextIdQuery(); }

  kernelForward(id: number): PortForward | undefined { return this.kernelById.get(id) as PortForward | undefined; }
  /** Every forward of a server as the kernel applies it. */
  kernelForwardsOfServer(serverId: number): PortForward[] { return this.kernelByServer.all(serverId) as PortForward[]; }
  kernelForwardsOfPeer(peerId: number): PortForward[] { return this.kernelByPeer.all(peerId) as PortForward[]; }
}

/** A device port forward: in forward mode, DNAT from the router's listenPort to targetIp:targetPort. */
export interface PortForward {
  id: number;
  serverId: number;
  protocol: 'tcp' | 'udp';
  listenPort: number;
  targetIp: string;
  /** The device's IPv6 address, when it has one: the forward is reachable over IPv6 too. */
  targetIp6: string | null;
  targetPort: number;
}
