// The reconciler's schedule: when the kernel is compared with what wgcp holds, and the log
// line, metric and last repair of each pass. Cheap when nothing drifted:
//   - peers: on the `wg show dump` each usage cycle already reads, in its parser's own pass (no tool);
//   - links and IPv6 forwarding: every LINK_CHECK_MS from /sys and /proc (no tool);
//   - the table: a kept `nft monitor` tells of changes made by others, then one compare;
//   - everything, IPv6 forwarding included: a full audit every AUDIT_MS and once at start.
// Only when a compare found drift does a repair change go through the runner (ops/kernel-repair.ts).
import type { App } from '../app';
import { COMPARERS } from '../kernel/reconcile-comparers';
import { wantedPeers } from '../kernel/reconcile-peers';
import { NftMonitor } from '../kernel/nft-monitor';
import type { Comparer, DriftKind, DumpObserver, Finding, ReconcileTarget } from '../kernel/reconcile-target';
import { recordRestored, repairKernel, type RepairResult } from '../ops/kernel-repair';
import { metricsOf } from '../metrics/context';

export const LINK_CHECK_MS = 2_000;
export const AUDIT_MS = 15 * 60_000;

/** The plane's side the reconciler needs (KernelLive has it; KernelOff does not). */
interface Reconcilable {
  reconcileTarget(observe: DumpObserver & { restored(serverId: number, peers: number): void }): ReconcileTarget;
  ownNftPids(): (number | null)[];
}

const reconcilers = new WeakMap<App, Reconciler>();
export const reconcilerOf = (app: App): Reconciler | undefined => reconcilers.get(app);

export class Reconciler {
  readonly target: ReconcileTarget;
  private readonly pendingPeers = new Set<number>();
  private readonly wanted = new Map<number, { revision: number; peers: ReturnType<typeof wantedPeers> }>();
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly monitor: NftMonitor;
  private tail: Promise<unknown> = Promise.resolve();
  private stopped = false;
  /** Passes run so far (with drift or without), for tests. */
  passes = 0;

  constructor(private readonly app: App, plane: Reconcilable) {
    this.target = plane.reconcileTarget({
      wanted: (serverId) => this.wantedOf(serverId),
      checked: (serverId, drifted) => { if (drifted) this.pendingPeers.add(serverId); },
      restored: (serverId, peers) => void this.restored(serverId, peers),
    });
    this.monitor = new NftMonitor(app.log, () => plane.ownNftPids(), () => void this.pass(['nft'], null, true));
  }

  start(): void {
    this.monitor.start();
    const links = setInterval(() => void this.pass(['link', 'ipv6'], null, true), LINK_CHECK_MS);
    const audit = setInterval(() => void this.pass(null, null, true), AUDIT_MS);
    for (const t of [links, audit]) t.unref();
    this.timers.push(links, audit);
    // The first audit learns the chains as start-up loaded them (and finds what drifted while wgcp was down).
    void this.pass(null, null, true);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers) clearInterval(t);
    this.monitor.close();
    await this.tail.catch(() => {});
  }

  /** The usage cycle's hook: the servers whose dump differed are repaired now. */
  afterUsage(): Promise<void> {
    this.metrics('peer');
    if (this.pendingPeers.size === 0) return Promise.resolve();
    const servers = new Set(this.pendingPeers);
    this.pendingPeers.clear();
    return this.pass(['peer'], servers, false);
  }

  /** The nft monitor's pid (tests). */
  monitorPid(): number | null { return this.monitor.pid(); }

  /**
   * The peers a server's dump should hold, for the usage cycle's parser to compare in its own
   * pass; kept until the server's peers change (built anew it would cost the cycle 5-10 ms at 10,000).
   */
  private wantedOf(serverId: number): ReturnType<typeof wantedPeers> | null {
    const m = this.target.upServers().find((s) => s.server.id === serverId);
    if (!m) return null;
    const kept = this.wanted.get(serverId);
    if (kept && kept.revision === m.revision) return kept.peers;
    try {
      const peers = wantedPeers(m.peers.values());
      this.wanted.set(serverId, { revision: m.revision, peers });
      return peers;
    } catch (err) {
      this.app.log.warn('the peers of a server cannot be compared', { serverID: serverId, error: err instanceof Error ? err.message : String(err) });
      return null;
    }
  }

  /**
   * One pass of some comparers (null: all). With `precheck`, they look first outside the
   * runner's turn and only drift takes a turn: a pass that finds nothing never waits for,
   * or holds up, a change.
   */
  pass(kinds: DriftKind[] | null, servers: ReadonlySet<number> | null, precheck: boolean): Promise<void> {
    const next = this.tail.then(() => this.runPass(kinds, servers, precheck));
    this.tail = next.catch(() => {});
    return next;
  }

  private async runPass(kinds: DriftKind[] | null, servers: ReadonlySet<number> | null, precheck: boolean): Promise<void> {
    if (this.stopped) return;
    let comparers: readonly Comparer[] = COMPARERS.filter((c) => !kinds || kinds.includes(c.kind));
    try {
      if (precheck) {
        const drifted: Comparer[] = [];
        for (const c of comparers) {
          this.metrics(c.kind);
          if ((await c.inspect(this.target, servers)).length > 0) drifted.push(c);
        }
        comparers = drifted;
      }
      if (comparers.length > 0 && !this.stopped) this.report(await repairKernel(this.app, this.target, comparers, servers));
    } catch (err) {
      this.app.log.warn('a kernel compare failed; tried again on the next pass', { error: err instanceof Error ? err.message : String(err) });
    } finally {
      this.passes++;
    }
  }

  private async restored(serverId: number, peers: number): Promise<void> {
    const m = this.target.upServers().find((s) => s.server.id === serverId);
    const found: Finding = {
      kind: 'link', serverId, interface: m?.server.interface ?? null, counts: { linksRestored: 1, peersRestored: peers }, items: 1 + peers,
      summary: 'wireguard-go restarted and was given its peers again', repair: async () => {},
    };
    try {
      this.report(await recordRestored(this.app, found));
    } catch (err) {
      this.app.log.warn('recording a restored interface failed', { error: err instanceof Error ? err.message : String(err) });
    }
  }

  private metrics(kind: DriftKind): void { metricsOf(this.app).driftChecks.inc([kind]); }

  /** One log line a pass that repaired anything (counts, never keys), the metric and each server's last repair. */
  private report({ repaired, failed }: RepairResult): void {
    if (repaired.length === 0 && failed.length === 0) return;
    const tally = metricsOf(this.app).driftRepairs;
    const kinds: Partial<Record<DriftKind, number>> = {};
    const counts: Record<string, number> = {};
    const at = this.app.now().toISOString();
    // Each server's last repair: its own findings, and the table's (the router's, shared by all).
    const byServer = new Map<number, { at: string; repairs: number; kinds: Record<string, number> }>();
    for (const f of repaired) {
      tally.inc([f.kind], f.items);
      kinds[f.kind] = (kinds[f.kind] ?? 0) + f.items;
      for (const [k, v] of Object.entries(f.counts)) counts[k] = (counts[k] ?? 0) + v;
      for (const id of f.serverId === null ? this.target.upServers().map((m) => m.server.id) : [f.serverId]) {
        const note = byServer.get(id) ?? { at, repairs: 0, kinds: {} };
        note.repairs += f.items;
        note.kinds[f.kind] = (note.kinds[f.kind] ?? 0) + f.items;
        byServer.set(id, note);
      }
    }
    for (const [id, note] of byServer) this.target.noteRepair(id, note);
    if (repaired.length) this.app.log.warn('kernel drift repaired', { repairs: repaired.reduce((n, f) => n + f.items, 0), ...kinds, ...counts });
    for (const { finding, error } of failed) this.app.log.error('a kernel drift could not be repaired; tried again on the next pass', { kind: finding.kind, interface: finding.interface, error });
  }
}

/** Starts the reconciler where the kernel is driven; null where it is off. */
export function startReconciler(app: App): Reconciler | null {
  const plane = app.kernel as unknown as Partial<Reconcilable>;
  if (app.kernel.state !== 'on' || typeof plane.reconcileTarget !== 'function') return null;
  const r = new Reconciler(app, plane as Reconcilable);
  reconcilers.set(app, r);
  r.start();
  return r;
}
