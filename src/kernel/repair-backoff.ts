// Repairs of drift that failed, per kind and server: each waits 5 s, doubling to 5 minutes
// (as a failed server), so a repair that cannot succeed (a read-only /proc/sys) never runs
// in a loop. Kept with its reason so that it is said once (one log line, one audit row), shown
// in /healthz and /metrics while it lasts, and forgotten when a repair holds or the drift is
// gone.
import { RETRY_FIRST_MS, RETRY_MAX_MS } from './failed-servers';
import type { DriftKind, Finding } from './reconcile-target';

export interface FailingRepair {
  kind: DriftKind;
  /** null: router-wide (the table). */
  serverId: number | null;
  interface: string | null;
  reason: string;
  since: string;
  attempts: number;
  nextRetryAt: string;
}

interface Entry extends FailingRepair { until: number; delayMs: number }

export class RepairBackoff {
  private readonly entries = new Map<string, Entry>();
  private static key(f: Pick<Finding, 'kind' | 'serverId'>): string { return `${f.kind}:${f.serverId ?? 'table'}`; }

  waiting(f: Finding, now = Date.now()): boolean { return (this.entries.get(RepairBackoff.key(f))?.until ?? 0) > now; }

  /** True when this finding failed before for the same reason: it was said already. */
  saidBefore(f: Finding, reason: string): boolean { return this.entries.get(RepairBackoff.key(f))?.reason === reason; }

  /** Records a failure; the wait before the next try. */
  failed(f: Finding, now = Date.now(), reason = 'the repair failed'): number {
    const old = this.entries.get(RepairBackoff.key(f));
    const delayMs = old ? Math.min(old.delayMs * 2, RETRY_MAX_MS) : RETRY_FIRST_MS;
    this.entries.set(RepairBackoff.key(f), {
      kind: f.kind, serverId: f.serverId, interface: f.interface, reason,
      since: old?.reason === reason ? old.since : new Date(now).toISOString(), attempts: (old?.attempts ?? 0) + 1,
      nextRetryAt: new Date(now + delayMs).toISOString(), until: now + delayMs, delayMs,
    });
    return delayMs;
  }

  /** Forgets a finding (its repair held); true when it had failed before. */
  clear(f: Pick<Finding, 'kind' | 'serverId'>): boolean { return this.entries.delete(RepairBackoff.key(f)); }

  /**
   * After a compare of `kind` over `servers` (null: all): the failing repairs it no longer
   * finds drifted (put right by someone else) are forgotten, and returned.
   */
  settle(kind: DriftKind, servers: ReadonlySet<number> | null, found: readonly Finding[]): FailingRepair[] {
    const still = new Set(found.map((f) => RepairBackoff.key(f)));
    const gone: FailingRepair[] = [];
    for (const [key, e] of this.entries) {
      if (e.kind !== kind || still.has(key) || (servers && (e.serverId === null || !servers.has(e.serverId)))) continue;
      this.entries.delete(key);
      gone.push(e);
    }
    return gone;
  }

  list(): FailingRepair[] {
    return [...this.entries.values()].map(({ until: _u, delayMs: _d, ...shown }) => shown);
  }
}
