// What the reconciler compares and repairs through: the state wgcp holds for the kernel (the
// live plane's model, which the change runner keeps equal to the database) and the few
// repairs it may make. Comparers are a list: a new kind of kernel state (shaping) is one
// more entry in src/kernel/reconcile-comparers.ts, with its own kind name.
import type { PolicyElements } from '../nft/elements';
import type { ServerModel } from './model';
import type { DumpCheck } from './peer-counters';
import type { ShapingDrift } from '../shaping/compare';
import type { SiteLinkRecord } from '../store/site-links';

export type DriftKind = 'peer' | 'link' | 'nft' | 'ipv6' | 'shaping' | 'siteLink';
export const DRIFT_KINDS: readonly DriftKind[] = ['peer', 'link', 'nft', 'ipv6', 'shaping', 'siteLink'];

export type ChainReference = Map<string, { head: string; rules: string[] }>;

export interface ReconcileTarget {
  readonly driver: 'kernel' | 'wireguard-go';
  /** The servers the kernel should hold now; failed ones hold nothing and are retried with back-off. */
  upServers(): ServerModel[];
  /**
   * The whole `inet wgcp` policy as wgcp holds it (the WAN set included). `found`: the table as
   * read, from which a target that does not follow the router's side itself (the CLI's check)
   * takes the router's networks: wgcpd's reading of the routes, not the database's.
   */
  wantedTable(found?: PolicyElements): PolicyElements;
  /** The chains as wgcp loads them, read back once at the first compare after start-up (their text never changes; null until then, or from the CLI). */
  chainReference: ChainReference | null;
  /** Element adds and deletes, one transaction through wgcp's own nft session. */
  applyElements(batch: string): Promise<void>;
  /** The table loaded again whole, as at start-up. */
  reloadTable(): Promise<void>;
  /** A server's interface made again with every peer (kernel WireGuard; wireguard-go's supervisor does its own). */
  reviveLink(serverId: number): Promise<void>;
  /** Address, MTU and up of a server's interface, left alone where right. */
  configureLink(serverId: number): Promise<void>;
  /** The HTB classes of a server's bandwidth limits against `tc class show`; null where the server has no shaping. */
  shapingDrift(serverId: number): Promise<ShapingDrift | null>;
  /** Puts the drifted classes right (the server's shaping made again where a device lost them all). */
  repairShaping(serverId: number, drift: ShapingDrift): Promise<void>;
  /** The site links the plane holds up (src/kernel/reconcile-site-links.ts); absent: none. */
  siteLinks?(): SiteLinkRecord[];
  /** A site link configured again whole, or made again where its interface is gone. */
  repairSiteLink?(link: SiteLinkRecord): Promise<void>;
}

/** The reconciler's look at each dump the usage cycle reads: what to compare, then whether the dump differed. */
export interface DumpObserver {
  check(serverId: number): DumpCheck | null;
  checked(serverId: number, drifted: boolean): void;
}

/** One difference found: what it is (counts, never keys) and the repair that puts it right. */
export interface Finding {
  kind: DriftKind;
  /** null: router-wide (the table). */
  serverId: number | null;
  interface: string | null;
  counts: Record<string, number>;
  /** How many items the repair puts right (the metric counts these). */
  items: number;
  /** Said by `wgcp check`: what differs, in words (no keys). */
  summary: string;
  repair(): Promise<void>;
}

export interface Comparer {
  kind: DriftKind;
  /** Reads the kernel (wgcp's own links and table only) and compares; `servers`: only these, or all. */
  inspect(target: ReconcileTarget, servers: ReadonlySet<number> | null): Promise<Finding[]>;
}
