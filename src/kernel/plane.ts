// The seam between the API and the router's kernel. The API calls these inside its
// database transaction; a throw rolls the transaction back, so the database never holds
// what the kernel refused.
import type { PeerRecord } from '../store/peers';
import type { ServerRecord } from '../store/servers';

export interface PeerChange {
  server: ServerRecord;
  before: PeerRecord | null;
  after: PeerRecord | null;
}

export interface ServerChange {
  before: ServerRecord | null;
  after: ServerRecord | null;
  /** The server's peers as they stand after the change (none when it is deleted). */
  peers: PeerRecord[];
}

export interface PeerCounters {
  latestHandshake: number;
  rxBytes: number;
  txBytes: number;
}

export interface KernelPlane {
  readonly state: 'on' | 'off';
  /** Start-up: make the kernel hold exactly this state. */
  reconcile(servers: { server: ServerRecord; peers: PeerRecord[] }[]): void;
  applyServer(change: ServerChange): void;
  applyPeer(change: PeerChange): void;
  /** Live counters of a server's peers, keyed by public key; empty when nothing is known. */
  peerCounters(server: ServerRecord): Map<string, PeerCounters>;
  close(): Promise<void>;
}

/** The backend for machines where the kernel cannot be driven: state lives in SQLite only. */
export class KernelOff implements KernelPlane {
  readonly state = 'off' as const;
  reconcile(): void {}
  applyServer(): void {}
  applyPeer(): void {}
  peerCounters(): Map<string, PeerCounters> { return new Map(); }
  async close(): Promise<void> {}
}
