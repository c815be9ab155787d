// A repair of the kernel is a change like any other, authored by the reconciler: in its turn
// of the change runner each server a finding named gets its full sync (src/ops/kernel-sync.ts),
// reading back only the kinds that drifted (what the comparers saw before the turn may be
// stale by now: the sync reads again), and the table its router-side sync (ROUTER_SYNC).
// The commit records one kernelDrift event a server (0: the router-wide table), each
// server's last repair and the audit row. A finding whose repair fails is left for the next pass.
import type { App } from '../app';
import type { KernelRepairNote } from '../kernel/plane';
import type { DriftKind, Finding, ReconcileTarget } from '../kernel/reconcile-target';
import { ROUTER_SYNC } from '../kernel/server-sync';
import { desiredOf } from './kernel-sync';
import type { KernelSync } from './runner';
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

/** What a repair syncs: each server id (ROUTER_SYNC: the table) and the kinds its sync reads back. */
export type RepairPlan = Map<number, readonly DriftKind[]>;

/** The plan of a pass's findings: each server they name with its kinds, the table's under ROUTER_SYNC. Pure. */
export function planOf(found: readonly Finding[]): RepairPlan {
  const plan = new Map<number, DriftKind[]>();
  for (const f of found) {
    const id = f.serverId ?? ROUTER_SYNC;
    const kinds = plan.get(id) ?? [];
    if (!kinds.includes(f.kind)) kinds.push(f.kind);
    plan.set(id, kinds);
  }
  return plan;
}

export function repairKernel(app: App, target: ReconcileTarget, plan: RepairPlan, opts: RepairOptions = {}): Promise<RepairResult> {
  const waiting = opts.waiting ?? (() => false);
  const saidBefore = opts.saidBefore ?? (() => false);
  return app.runner.run('kernel.repair', (store) => {
    const syncs: KernelSync[] = [];
    for (const [serverId, kinds] of plan) {
      const desired = serverId === ROUTER_SYNC ? null : desiredOf(store, serverId, 'all');
      // A server deleted since the compare has nothing left to repair.
      if (serverId !== ROUTER_SYNC && !desired) continue;
      syncs.push({ serverId, desired, opts: { peers: 'all', kinds, skip: waiting } });
    }
    return {
      kernel: syncs.map((sync) => ({ sync })),
      commit: ({ event, store: s }) => {
        const result: RepairResult = { repaired: syncs.flatMap((x) => x.held?.repairs?.repaired ?? []), failed: syncs.flatMap((x) => x.held?.repairs?.failed ?? []) };
        const notes = repairNotes(result.repaired, target.upServers().map((m) => m.server.id), app.now().toISOString());
        for (const [serverId, note] of notes) s.kernelRepairs.note(serverId, note);
        const byServer = new Map<number, Finding[]>();
        for (const f of result.repaired) byServer.set(f.serverId ?? 0, [...byServer.get(f.serverId ?? 0) ?? [], f]);
        for (const [serverId, found] of byServer) event('kernelDrift', serverId, kernelDriftEventData(found));
        return result;
      },
      audit: (r: RepairResult) => auditOf(r, saidBefore),
    };
  }, { actor: RECONCILER_ACTOR });
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
