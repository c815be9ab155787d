// The seam between the operations and the router's kernel. Only the change runner
// (src/ops/runner.ts) applies changes, one at a time, between planning a change and
// committing it; a rejection means the kernel is as it was and nothing is committed.
import type { KernelPeer, PeerRecord } from '../store/peers';
import type { ServerRecord } from '../store/servers';
import type { KernelRepairNote } from '../store/kernel-repairs';
import type { ServerFailure } from './failed-servers';
import type { FailingRepair } from './repair-backoff';
import type { SiteLinkChange } from './site-links';
import type { SiteLinkRecord } from '../store/site-links';

export interface PeerChange {
  server: ServerRecord;
  before: PeerRecord | null;
  after: PeerRecord | null;
  /** The peer's port forwards before and after, when the change moves them (a new address, a delete): one kernel change with the peer's. */
  forwards?: { before: PortForward[]; after: PortForward[] };
}

export interface ServerChange {
  before: ServerRecord | null;
  after: ServerRecord | null;
  /** The peers a new server starts with (an import brings some); an update or a delete carries none: the plane keeps those it holds. */
  peers: PeerRecord[];
  /** The server's forwards as they stand after the change (none when it is deleted). */
  forwards: PortForward[];
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

export interface ForwardChange {
  server: ServerRecord;
  before: PortForward | null;
  after: PortForward | null;
}

export interface ServerState {
  server: ServerRecord;
  peers: KernelPeer[];
  forwards: PortForward[];
}

export interface PeerCounters {
  latestHandshake: number;
  rxBytes: number;
  txBytes: number;
}

export interface ReconcileOptions {
  /** Links named as a server's interface but not marked (made by a wgcp before marks) are adopted once. */
  adoptUnmarked?: boolean;
}

/** How a server stands in the kernel: up, failed (with why, retried), or off (no kernel backend). */
export type ServerKernelState = ({ state: 'up' } | { state: 'off' } | ({ state: 'failed' } & ServerFailure)) & { lastRepair?: KernelRepairNote };

export type { KernelRepairNote };

export interface KernelPlane {
  readonly state: 'on' | 'off';
  /** Why the backend is off (shown in /healthz); absent when it is on. */
  readonly reason?: string;
  /** Start-up: make the kernel hold exactly this state; a server that fails is marked failed, not fatal. */
  reconcile(servers: ServerState[], opts?: ReconcileOptions): Promise<void>;
  /** True when a link of this name exists on the router and wgcp did not make it. */
  isForeignLink(name: string): boolean;
  serverState(serverId: number): ServerKernelState;
  /** Servers that could not be brought up, with the reason. */
  failures(): ServerFailure[];
  /** Repairs of drift that keep failing (retried with back-off), with why; absent or empty: none. */
  failingRepairs?(): FailingRepair[];
  applyServer(change: ServerChange): Promise<void>;
  applyPeer(change: PeerChange): Promise<void>;
  /** Many peers' changes as one kernel batch (a boundary of access schedules); absent: the runner applies them one by one. */
  applyPeers?(changes: PeerChange[]): Promise<void>;
  applyForward(change: ForwardChange): Promise<void>;
  /** A site link made or removed (src/kernel/site-links.ts); absent: nothing is applied (the store holds it for the next start). */
  applySiteLink?(change: SiteLinkChange): Promise<void>;
  /** Start-up, after reconcile: every stored site link up. */
  bringUpSiteLinks?(links: SiteLinkRecord[]): Promise<void>;
  /** Kernel work that is not a change of the store (a failed server's retry) waits its turn through this. */
  setSerializer?(serialize: (what: string, work: () => Promise<void>) => Promise<void>): void;
  /** Live counters of a server's peers, keyed by public key; empty when nothing is known. Read without holding the event loop. */
  peerCounters(server: ServerRecord): Promise<Map<string, PeerCounters>>;
  close(): Promise<void>;
}

/** The backend for machines where the kernel cannot be driven: state lives in SQLite only. */
export class KernelOff implements KernelPlane {
  readonly state = 'off' as const;
  constructor(readonly reason = 'the kernel backend is off') {}
  async reconcile(): Promise<void> {}
  isForeignLink(): boolean { return false; }
  serverState(): ServerKernelState { return { state: 'off' }; }
  failures(): ServerFailure[] { return []; }
  async applyServer(_change: ServerChange): Promise<void> {}
  async applyPeer(_change: PeerChange): Promise<void> {}
  async applyPeers(_changes: PeerChange[]): Promise<void> {}
  async applyForward(_change: ForwardChange): Promise<void> {}
  async peerCounters(): Promise<Map<string, PeerCounters>> { return new Map(); }
  async close(): Promise<void> {}
}
