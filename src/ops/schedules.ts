// Access schedules applied: the peers whose schedule boundary is due, decided at the moment
// the change is planned, as ONE change of the runner (one kernel batch, one transaction).
// A peer whose schedule closes gets `schedule` in its reasons; one whose schedule opens has
// it lifted; its other reasons are left as they are.
import type { App } from '../app';
import type { Schedule } from '../schedule/rules';
import type { PeerChange } from '../kernel/plane';
import { hasReason, leavesInterface } from '../peer-state';
import type { ChangeOptions } from './runner';
import { withScheduleState } from './schedule-state';

export interface ScheduleOutcome {
  /** Peers that `schedule` now holds, and peers it no longer holds. */
  closed: number[];
  opened: number[];
  /** Each peer asked about as the plan read it: its schedule (null: none any more; absent: gone). */
  schedules: Map<number, Schedule | null>;
}

/** How many peer ids the audit note lists (the counts are always whole). */
const AUDIT_IDS = 100;

export function applySchedules(app: App, ids: Iterable<number>, clock: () => Date = app.now, opts?: ChangeOptions): Promise<ScheduleOutcome> {
  return app.runner.run<ScheduleOutcome>('peer.schedule', (store) => {
    const at = clock();
    const t = at.getTime();
    const schedules = new Map<number, Schedule | null>();
    const changes: Array<PeerChange & { before: NonNullable<PeerChange['before']>; after: NonNullable<PeerChange['after']> }> = [];
    for (const id of ids) {
      const before = store.peers.get(id);
      if (!before) continue;
      schedules.set(id, before.schedule ?? null);
      const next = withScheduleState(before, t);
      if (next === before) continue;
      changes.push({ server: store.servers.get(before.serverId)!, before, after: { ...next, updatedAt: at.toISOString() } });
    }
    const closed = changes.filter((c) => hasReason(c.after, 'schedule')).map((c) => c.after.id);
    const opened = changes.filter((c) => !hasReason(c.after, 'schedule')).map((c) => c.after.id);
    if (changes.length === 0) return { commit: () => ({ closed, opened, schedules }), audit: false };
    return {
      kernel: [{ peers: changes }],
      commit({ store, peerEvent }) {
        for (const { server, before, after } of changes) {
          store.peers.update(after);
          if (leavesInterface(before, after)) store.usage.forgetBaseline(after.id);
          const closing = hasReason(after, 'schedule');
          // Taken off by its schedule is a restriction (and its notice); any other step is an update.
          const name = closing && before.enabled ? 'peerRestricted' : 'peerUpdated';
          peerEvent(name, server, after, { change: closing ? 'schedule closed' : 'schedule opened' });
        }
        return { closed, opened, schedules };
      },
      audit: () => ({ targetType: 'peer', targetId: null, summary: { closed: closed.length, opened: opened.length, peers: [...closed, ...opened].slice(0, AUDIT_IDS) } }),
    };
  }, opts);
}
