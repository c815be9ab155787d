// The live plane as the reconciler sees it (src/kernel/reconcile-target.ts), and the hooks
// the reconciler leaves in it: its look at each dump the usage cycle reads, each interface
// a wireguard-go restart restored, and where each server's last repair is read (the
// database, where the repair's commit wrote it; shown with the server).
import { applyBatch } from '../nft/apply';
import { mergeInto, type PolicyElements } from '../nft/elements';
import { fullPolicy } from '../nft/policy';
import { renderTable } from '../nft/render';
import type { Shaper } from '../shaping/shaper';
import { configureLink } from '../wg/link';
import type { ServerModel } from './model';
import { countersOfDump, type DumpCheck } from './peer-counters';
import type { KernelRepairNote, PeerCounters } from './plane';
import type { DriftKind, DumpObserver, ReconcileTarget } from './reconcile-target';
import type { Logger } from '../log';
import { COMPARERS } from './reconcile-comparers';
import type { SyncOptions, SyncRepairs } from './server-sync';
import type { SiteLinkRecord } from '../store/site-links';

/** The kinds that are the router's, not a server's: what the router's side of a sync (ROUTER_SYNC) reads back. */
const ROUTER_KINDS: readonly DriftKind[] = ['nft', 'siteLink'];

/** What the reconciler's view reads and drives of the live plane. */
export interface LivePlaneParts {
  driver: ReconcileTarget['driver'];
  /** The servers brought up (failed ones left out). */
  upServers(): ServerModel[];
  /** The server's model, or undefined if the plane does not know it. */
  known(serverId: number): ServerModel | undefined;
  /** The server's model; throws if the plane does not know it. */
  model(serverId: number): ServerModel;
  /** The router side's sets (WAN interfaces, the router's networks) as last applied. */
  wanHeld(): Pick<PolicyElements, 'wan' | 'routerNets' | 'routerNets6'>;
  /** The site links' filter as held (nft/site-link-policy.ts). */
  siteLinkElements(): PolicyElements;
  /** The site links up, and one configured again (kernel/site-links.ts). */
  siteLinks(): SiteLinkRecord[];
  repairSiteLink(link: SiteLinkRecord): Promise<void>;
  applyElements(batch: string): Promise<void>;
  /** The server's interface made again; if that fails it is marked failed and retried with back-off, as at start-up. */
  reviveLink(serverId: number): Promise<void>;
  shaper: Shaper;
}

export type ReconcileObserver = DumpObserver & {
  restored(serverId: number, peers: number): void;
  /** A server's last repair as committed. */
  lastRepair(serverId: number): KernelRepairNote | undefined;
};

export class ReconcilerHooks {
  private dumps: DumpObserver | null = null;
  private restoredObserver: ((serverId: number, peers: number) => void) | null = null;
  private lastRepairOf: ((serverId: number) => KernelRepairNote | undefined) | null = null;
  /** The chains as loaded, learned once: shared by every view (the reconciler's compare and a sync's read-back). */
  private chains: ReconcileTarget['chainReference'] = null;

  /** The reconciler's view, its hooks set to `observe`. */
  target(live: LivePlaneParts, observe: ReconcileObserver): ReconcileTarget {
    this.dumps = observe;
    this.restoredObserver = observe.restored;
    this.lastRepairOf = observe.lastRepair;
    return this.view(live);
  }

  /** The plane as the comparers read and repair it, without hooks (a full sync's read of the kernel). */
  view(live: LivePlaneParts): ReconcileTarget {
    const wanted = (): PolicyElements => {
      const policy = mergeInto(fullPolicy(live.upServers()), live.siteLinkElements());
      const side = live.wanHeld();
      for (const k of ['wan', 'routerNets', 'routerNets6'] as const) for (const e of side[k]) policy[k].add(e);
      return policy;
    };
    const hooks = this;
    return {
      driver: live.driver,
      upServers: () => live.upServers(),
      wantedTable: wanted,
      get chainReference() { return hooks.chains; },
      set chainReference(c) { hooks.chains = c; },
      applyElements: (batch) => live.applyElements(batch),
      reloadTable: () => applyBatch(renderTable(wanted())),
      reviveLink: (serverId) => live.reviveLink(serverId),
      configureLink: (serverId) => configureLink(live.model(serverId).server),
      shapingDrift: async (serverId) => {
        const m = live.known(serverId);
        return m && live.shaper.held(m.server.interface) ? live.shaper.drift(m.server.interface) : null;
      },
      repairShaping: async (serverId, drift) => {
        const m = live.model(serverId);
        await live.shaper.repair(m.server.interface, m.peers.values(), drift);
      },
      siteLinks: () => live.siteLinks(),
      repairSiteLink: (link) => live.repairSiteLink(link),
    };
  }

  /**
   * A full sync's read of the kernel: each kind (`opts.kinds`, or all) read, diffed against
   * what the rows say and put right in one batch. `serverId` null: the router's side only
   * (the table). A repair that fails is returned, not thrown: the rows are synced, and drift
   * never fails the change that synced them (the reconciler tries again with back-off).
   */
  async readBack(live: LivePlaneParts, serverId: number | null, opts: SyncOptions, log: Logger): Promise<SyncRepairs> {
    const view = this.view(live);
    // The router's side reads the router-wide kinds alone, over everything (a comparer of site
    // links reads nothing in a pass about some servers); a server's, its own.
    const only = serverId === null ? null : new Set([serverId]);
    const kinds = opts.kinds ?? (serverId === null ? ROUTER_KINDS : null);
    const out: SyncRepairs = { repaired: [], failed: [] };
    for (const c of COMPARERS) {
      if (kinds && !kinds.includes(c.kind)) continue;
      const found = await c.inspect(view, only).catch((err: unknown) => {
        log.warn('a sync could not read the kernel back: the reconciler looks again', { serverID: serverId, kind: c.kind, error: err instanceof Error ? err.message : String(err) });
        return [];
      });
      for (const f of found) {
        if (opts.skip?.(f)) continue;
        try {
          await f.repair();
          out.repaired.push(f);
        } catch (err) {
          out.failed.push({ finding: f, error: err instanceof Error ? err.message : String(err) });
        }
      }
    }
    return out;
  }

  /** A server's counters from its dump, which the reconciler compares on the way when it asked to. */
  counters(serverId: number, dump: string): Map<string, PeerCounters> {
    const check: DumpCheck | undefined = this.dumps?.check(serverId) ?? undefined;
    const counters = countersOfDump(dump, check);
    if (check) this.dumps!.checked(serverId, check.drifted);
    return counters;
  }

  restored(serverId: number, peers: number): void { this.restoredObserver?.(serverId, peers); }

  lastRepair(serverId: number): KernelRepairNote | undefined { return this.lastRepairOf?.(serverId); }
}
