// The seam between the operations and the router's kernel. Only the change runner
// (src/ops/runner.ts) applies changes, one at a time, between planning a change and
// committing it; a rejection means the kernel is as it was and nothing is committed.
import type { KernelPeer, PeerRecord } from '../store/peers';
import type { ServerRecord } from '../store/servers';
import type { KernelRepairNote } from '../store/kernel-repairs';
import type { ServerFailure } from './failed-servers';
import type { FailingRepair, RepairBackoff } from './repair-backoff';
import type { ReconcileObserver } from './live-reconcile-target';
import type { ReconcileTarget } from './reconcile-target';
import type { PortForward } from '../store/forwards';
import type { SyncOptions, SyncUndo } from './server-sync';
import type { SiteLinkChange } from './site-links';
import type { SiteLinkRecord } from '../store/site-links';

export type { PortForward };

/** A peer's change: the operations carry whole records; the kernel reads only a KernelPeer's fields (a sync takes rows as the model holds them). */
export interface PeerChange<P extends KernelPeer = PeerRecord> {
  server: ServerRecord;
  before: P | null;
  after: P | null;
  /** The peer's port forwards before and after, when the change moves them (a new address, a delete): one kernel change with the peer's. */
  forwards?: { before: PortForward[]; after: PortForward[] };
}

export interface ServerChange<P extends KernelPeer = PeerRecord> {
  before: ServerRecord | null;
  after: ServerRecord | null;
  /** The peers a new server starts with (an import brings some); an update or a delete carries none: the plane keeps those it holds. */
  peers: P[];
  /** The server's forwards as they stand after the change (none when it is deleted). */
  forwards: PortForward[];
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
  /** Where the peer's packets last came from (host:port), when the kernel knows: a standby's wake-up starts handshakes there. */
  endpoint?: string;
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
  /**
   * Start-up's first step, fail-closed: wgcp's stale links removed and the whole table loaded
   * for these servers; each server then comes up through its full sync (syncServer). A
   * server that fails is marked failed, not fatal.
   */
  prepare(servers: ServerState[], opts?: ReconcileOptions): Promise<void>;
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
  /** Start-up after the servers' syncs, or a promotion: every stored site link up (ops/site-links-role.ts). */
  bringUpSiteLinks?(links: SiteLinkRecord[]): Promise<void>;
  /** This router became a standby: every site link down. */
  takeDownSiteLinks?(): Promise<void>;
  /**
   * The one sync of a server to what the store says (null: the store has it no more):
   * partial (the peers named) or full ('all', which reads the kernel too). Only the change
   * runner calls it (src/ops/kernel-sync.ts); resolves with the rows held before, for its undo.
   */
  syncServer(serverId: number, desired: ServerState | null, opts: SyncOptions): Promise<SyncUndo>;
  /** Kernel work that is not a change of the store (a site link restored after wireguard-go restarted, spare bandwidth classes) waits its turn through this. */
  setSerializer?(serialize: (what: string, work: () => Promise<void>) => Promise<void>): void;
  /** How the plane asks for a full sync of a server through the runner (a failed server's retry, a resync after a killed `wg`, an interface wireguard-go made again). */
  setSyncer?(sync: (serverId: number, req?: { remade?: boolean }) => Promise<SyncUndo | undefined>): void;
  /** The reconciler's view of the plane and its hooks (absent where the kernel is not driven). */
  reconcileTarget?(observe: ReconcileObserver): ReconcileTarget;
  /** Process ids of wgcp's own nft, so the monitor can tell its changes from others'. */
  ownNftPids?(): (number | null)[];
  /** Where failed repairs wait (shown in /healthz and /metrics). */
  readonly repairBackoff?: RepairBackoff;
  /** Live counters of a server's peers, keyed by public key; empty when nothing is known. Read without holding the event loop. */
  peerCounters(server: ServerRecord): Promise<Map<string, PeerCounters>>;
  close(): Promise<void>;
}

/** The backend for machines where the kernel cannot be driven: state lives in SQLite only. */
export class KernelOff implements KernelPlane {
  readonly state = 'off' as const;
  constructor(readonly reason = 'the kernel backend is off') {}
  async prepare(): Promise<void> {}
  isForeignLink(): boolean { return false; }
  serverState(): ServerKernelState { return { state: 'off' }; }
  failures(): ServerFailure[] { return []; }
  async applyServer(_change: ServerChange): Promise<void> {}
  async applyPeer(_change: PeerChange): Promise<void> {}
  async applyPeers(_changes: PeerChange[]): Promise<void> {}
  async applyForward(_change: ForwardChange): Promise<void> {}
  async syncServer(_serverId: number, _desired: ServerState | null, _opts: SyncOptions): Promise<SyncUndo> { return { server: null, peers: [], forwards: [], ids: [] }; }
  async peerCounters(): Promise<Map<string, PeerCounters>> { return new Map(); }
  async close(): Promise<void> {}
}
