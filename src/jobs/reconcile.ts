// The reconciler's schedule: when the kernel is compared with what wgcp holds, and the log
// line, metric and last repair of each pass. Cheap when nothing drifted:
//   - peers: on the `wg show dump` each usage cycle already reads, in its parser's own pass (no tool);
//   - links and IPv6 forwarding: every LINK_CHECK_MS from /sys and /proc (no tool); site links
//     then too, with two tools a link (none without links);
//   - the tables: a kept `nft monitor` tells of changes made by others to `inet wgcp` or to
//     `netdev wgcp` (bandwidth limits), then one compare of what was touched;
//   - everything, IPv6 forwarding and shaping included: a full audit every WGCP_KERNEL_AUDIT_S
//     (15 minutes unless set) and once at start.
// Only when a compare found drift does a repair change go through the runner (ops/kernel-repair.ts):
// the full sync of each server it names, reading back the kinds that drifted.
import type { App } from '../app';
import { COMPARERS } from '../kernel/reconcile-comparers';
import { wantedOfModel } from '../kernel/reconcile-peers';
import { ATTRIBUTE_SLICES, type DumpCheck } from '../kernel/peer-counters';
import { NftMonitor } from '../kernel/nft-monitor';
import type { Comparer, DriftKind, Finding, ReconcileTarget } from '../kernel/reconcile-target';
import type { KernelPlane } from '../kernel/plane';
import { planOf, recordRestored, repairKernel, type RepairPlan, type RepairResult } from '../ops/kernel-repair';
import { RepairBackoff } from '../kernel/repair-backoff';

export const LINK_CHECK_MS = 2_000;

/** The plane's side the reconciler needs (KernelLive has it; KernelOff does not). */
type Reconcilable = Required<Pick<KernelPlane, 'reconcileTarget' | 'ownNftPids' | 'repairBackoff'>>;

/** That side of a plane that drives the kernel; null where it is off or lacks it. */
function reconcilableOf(kernel: KernelPlane): Reconcilable | null {
  const { repairBackoff } = kernel;
  if (kernel.state !== 'on' || !kernel.reconcileTarget || !kernel.ownNftPids || !repairBackoff) return null;
  const target = kernel.reconcileTarget.bind(kernel);
  const pids = kernel.ownNftPids.bind(kernel);
  return { reconcileTarget: target, ownNftPids: pids, repairBackoff };
}


export class Reconciler {
  readonly target: ReconcileTarget;
  private readonly pendingPeers = new Set<number>();
  /** Each server's slice of peers whose attributes the last cycle compared. */
  private readonly slices = new Map<number, number>();
  /** Repairs that failed wait before they are tried again, as a failed server does: never a tight loop. */
  private readonly backoff: RepairBackoff;
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly monitor: NftMonitor;
  private tail: Promise<unknown> = Promise.resolve();
  private stopped = false;
  /** Passes asked for and not yet started, by what they compare: a timer never queues a second one behind a slow one. */
  private readonly waitingPasses = new Map<string, Promise<void>>();

  constructor(private readonly app: App, plane: Reconcilable) {
    this.backoff = plane.repairBackoff;
    this.target = plane.reconcileTarget({
      check: (serverId) => this.checkOf(serverId),
      checked: (serverId, drifted) => { if (drifted) this.pendingPeers.add(serverId); },
      restored: (serverId, peers) => void this.restored(serverId, peers),
      lastRepair: (serverId) => app.store.kernelRepairs.get(serverId),
    });
    this.monitor = new NftMonitor(app.log, () => plane.ownNftPids(), (kinds) => void this.pass(kinds, null, true));
  }

  start(): void {
    this.monitor.start();
    const links = setInterval(() => void this.pass(['link', 'ipv6', 'siteLink'], null, true), LINK_CHECK_MS);
    const audit = setInterval(() => void this.pass(null, null, true), this.app.config.kernelAuditS * 1000);
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

  /** What the usage cycle's parser compares in its own pass: the peers the dump should hold, and this cycle's slice of their attributes. */
  private checkOf(serverId: number): DumpCheck | null {
    const m = this.target.upServers().find((s) => s.server.id === serverId);
    if (!m) return null;
    try {
      const slice = ((this.slices.get(serverId) ?? -1) + 1) % ATTRIBUTE_SLICES;
      this.slices.set(serverId, slice);
      return { wanted: wantedOfModel(m), drifted: false, slice };
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
    const key = servers === null && precheck ? (kinds ?? ['all']).join(',') : null;
    const waiting = key === null ? undefined : this.waitingPasses.get(key);
    if (waiting) return waiting;
    const next = this.tail.then(() => {
      if (key !== null) this.waitingPasses.delete(key);
      return this.runPass(kinds, servers, precheck);
    });
    if (key !== null) this.waitingPasses.set(key, next);
    this.tail = next.catch(() => {});
    return next;
  }

  private async runPass(kinds: DriftKind[] | null, servers: ReadonlySet<number> | null, precheck: boolean): Promise<void> {
    if (this.stopped) return;
    const comparers: readonly Comparer[] = COMPARERS.filter((c) => !kinds || kinds.includes(c.kind));
    try {
      // What to sync: with `precheck`, the servers (and the table) whose compare found drift
      // not waiting its back-off; without, every server named, with the kinds asked for.
      let plan: RepairPlan;
      if (precheck) {
        const drifted: Finding[] = [];
        for (const c of comparers) {
          // Each compare in a turn of its own: the daemon answers between them.
          await new Promise((resolve) => setImmediate(resolve));
          this.metrics(c.kind);
          const found = await c.inspect(this.target, servers);
          this.settled(c.kind, servers, found);
          drifted.push(...found.filter((f) => !this.backoff.waiting(f)));
        }
        plan = planOf(drifted);
      } else {
        const ids = servers ? [...servers] : this.target.upServers().map((m) => m.server.id);
        plan = new Map(ids.map((id) => [id, comparers.map((c) => c.kind)]));
      }
      if (plan.size > 0 && !this.stopped) {
        this.report(await repairKernel(this.app, this.target, plan, {
          waiting: (f) => this.backoff.waiting(f), saidBefore: (f, error) => this.backoff.saidBefore(f, error),
        }));
      }
    } catch (err) {
      this.app.log.warn('a kernel compare failed; tried again on the next pass', { error: err instanceof Error ? err.message : String(err) });
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

  private metrics(kind: DriftKind): void { this.app.services.metrics.driftChecks.inc([kind]); }

  /** One log line a pass that repaired anything (counts, never keys) and the metric (each server's last repair was committed with it). */
  private report({ repaired, failed }: RepairResult): void {
    if (repaired.length === 0 && failed.length === 0) return;
    const tally = this.app.services.metrics.driftRepairs;
    const kinds: Partial<Record<DriftKind, number>> = {};
    const counts: Record<string, number> = {};
    for (const f of repaired) {
      tally.inc([f.kind], f.items);
      kinds[f.kind] = (kinds[f.kind] ?? 0) + f.items;
      for (const [k, v] of Object.entries(f.counts)) counts[k] = (counts[k] ?? 0) + v;
    }
    if (repaired.length) this.app.log.warn('kernel drift repaired', { repairs: repaired.reduce((n, f) => n + f.items, 0), ...kinds, ...counts });
    for (const f of repaired) {
      if (this.backoff.clear(f)) this.app.log.info('a kernel repair that kept failing holds now', { kind: f.kind, interface: f.interface });
    }
    // Said once a reason: a repair that cannot succeed waits its back-off in silence, shown in /healthz and /metrics.
    for (const { finding, error } of failed) {
      const first = !this.backoff.saidBefore(finding, error);
      const waitMs = this.backoff.failed(finding, Date.now(), error);
      const fields = { kind: finding.kind, interface: finding.interface, error, retryInMs: waitMs };
      if (first) this.app.log.error('a kernel drift cannot be repaired: tried again with back-off (up to 5 minutes), said again only if the reason changes', fields);
      else this.app.log.debug('a kernel drift still cannot be repaired', fields);
    }
  }

  /** Failing repairs whose drift a compare no longer finds (someone else put it right) are forgotten. */
  private settled(kind: DriftKind, servers: ReadonlySet<number> | null, found: readonly Finding[]): void {
    for (const gone of this.backoff.settle(kind, servers, found)) {
      this.app.log.info('a kernel drift that could not be repaired is gone', { kind: gone.kind, interface: gone.interface });
    }
  }
}

/** Kept where the plane can show it (/healthz, /metrics); here for the suites that import it from the reconciler. */
export { RepairBackoff };

/** Starts the reconciler where the kernel is driven; null where it is off. */
export function startReconciler(app: App): Reconciler | null {
  const plane = reconcilableOf(app.kernel);
  if (!plane) return null;
  const r = new Reconciler(app, plane);
  r.start();
  return r;
}
