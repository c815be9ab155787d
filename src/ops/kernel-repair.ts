// A repair of the kernel is a change like any other, authored by the reconciler: in its turn
// of the change runner the comparers read the kernel again (what they saw before the turn
// may be stale by now), each difference is put right with the same incremental steps a
// change uses, and the commit records one kernelDrift event a server (0: the router-wide
// table), each server's last repair and the audit row. A finding whose repair fails is left
// for the next pass.
import type { App } from '../app';
import type { KernelRepairNote } from '../kernel/plane';
import type { Comparer, Finding, ReconcileTarget } from '../kernel/reconcile-target';
import type { Actor } from '../store/audit';
import { kernelDriftEventData } from '../views/event-data';

export const RECONCILER_ACTOR: Actor = { kind: 'reconciler', id: null, name: 'reconciler', role: null, address: null };

export interface RepairResult { repaired: Finding[]; failed: { finding: Finding; error: string }[] }

/** Each server's note of these repairs: its own findings, and the table's (the router's, shared by every server up). Pure. */
export function repairNotes(found: readonly Finding[], upServerIds: readonly number[], at: string): Map<number, KernelRepairNote> {
  const notes = new Map<number, KernelRepairNote>();
  for (const f of found) {
    for (const id of f.serverId === null ? upServerIds : [f.serverId]) {
      const note = notes.get(id) ?? { at, repairs: 0, kinds: {} };
      note.repairs += f.items;
      note.kinds[f.kind] = (note.kinds[f.kind] ?? 0) + f.items;
      notes.set(id, note);
    }
  }
  return notes;
}

export interface RepairOptions {
  /** A finding whose repair failed lately and waits its back-off: left for a later pass. */
  waiting?(f: Finding): boolean;
  /** A failure already said (same finding, same reason): no second audit row. */
  saidBefore?(f: Finding, error: string): boolean;
}

/**
 * The audit row of a repair: the kinds repaired, and the repairs that failed for a reason not
 * said before (a repair that cannot succeed is written once, not at each retry).
 */
function auditOf(r: RepairResult, saidBefore: (f: Finding, error: string) => boolean) {
  const failed = r.failed.filter((x) => !saidBefore(x.finding, x.error)).map((x) => ({ kind: x.finding.kind, interface: x.finding.interface, reason: x.error }));
  if (r.repaired.length === 0 && failed.length === 0) return null;
  return { targetType: 'kernel', targetId: null, summary: { ...(r.repaired.length ? kernelDriftEventData(r.repaired).kinds : {}), ...(failed.length ? { failed } : {}) } };
}

export function repairKernel(app: App, target: ReconcileTarget, comparers: readonly Comparer[], servers: ReadonlySet<number> | null, opts: RepairOptions = {}): Promise<RepairResult> {
  const waiting = opts.waiting ?? (() => false);
  const saidBefore = opts.saidBefore ?? (() => false);
  const result: RepairResult = { repaired: [], failed: [] };
  return app.runner.run('kernel.repair', () => ({
    kernel: [{
      repair: {
        what: 'kernel repair',
        async run() {
          for (const c of comparers) {
            for (const f of await c.inspect(target, servers)) {
              if (waiting(f)) continue;
              try {
                await f.repair();
                result.repaired.push(f);
              } catch (err) {
                result.failed.push({ finding: f, error: err instanceof Error ? err.message : String(err) });
              }
            }
          }
        },
      },
    }],
    commit: ({ event, store }) => {
      const notes = repairNotes(result.repaired, target.upServers().map((m) => m.server.id), app.now().toISOString());
      for (const [serverId, note] of notes) store.kernelRepairs.note(serverId, note);
      const byServer = new Map<number, Finding[]>();
      for (const f of result.repaired) byServer.set(f.serverId ?? 0, [...byServer.get(f.serverId ?? 0) ?? [], f]);
      for (const [serverId, found] of byServer) event('kernelDrift', serverId, kernelDriftEventData(found));
      return result;
    },
    audit: (r) => auditOf(r, saidBefore),
  }), { actor: RECONCILER_ACTOR });
}

/** A repair made outside the turn by a supervisor (wireguard-go restarted and restored): recorded as the reconciler's. */
export function recordRestored(app: App, found: Finding): Promise<RepairResult> {
  const result: RepairResult = { repaired: [found], failed: [] };
  return app.runner.run('kernel.repair', () => ({
    commit: ({ event, store }) => {
      for (const [serverId, note] of repairNotes([found], [], app.now().toISOString())) store.kernelRepairs.note(serverId, note);
      event('kernelDrift', found.serverId ?? 0, kernelDriftEventData([found]));
      return result;
    },
    audit: () => ({ targetType: 'kernel', targetId: found.serverId, summary: kernelDriftEventData([found]).kinds }),
  }), { actor: RECONCILER_ACTOR });
}
