// The usage changes the jobs make: a cycle's counted traffic and baselines, a new usage
// month. Store-only changes of the runner (no kernel step, no event), so that they take
// their turn with every other change and never write beside one.
import type { App } from '../app';
import type { Store } from '../store/store';
import type { UsageTable } from '../store/usage';
import type { ChangeOptions } from './runner';

type Traffic = Parameters<UsageTable['addUsage']>[0];
type Baselines = Parameters<UsageTable['recordCycle']>[1];

const MONTH_STATE = 'usageMonth';

/** Adds a cycle's deltas and baselines, all peers in one change; `decide` plans them from the store as it stands. */
export function recordUsage<P extends { traffic: Traffic; baselines: Baselines }>(app: App, decide: (store: Store) => P, seenAt: string, opts?: ChangeOptions, endpoints?: ReadonlyMap<string, string>): Promise<P> {
  return app.runner.run('usage.record', (store) => {
    const plan = decide(store);
    return {
      commit({ store }) {
        store.usage.recordCycle(plan.traffic, plan.baselines);
        // The primary's last-known endpoints travel to the standby with the cycle (docs/ha.md).
        if (endpoints?.size) store.ha.noteEndpoints(endpoints, seenAt);
        return plan;
      },
      // Every minute's counting is bookkeeping, not a decision: the audit log would be its diary.
      audit: false,
    };
  }, { ...opts, deferrable: true });
}

export type MonthOutcome = 'same' | 'behind' | 'first' | 'started';

/**
 * Enters usage month `month` (YYYY-MM) if the store is in an earlier one: usage to zero.
 * A clock behind the stored month (no RTC before NTP) changes nothing; a fresh database
 * records the month and resets nothing (its usage already belongs to it).
 */
export function startUsageMonth(app: App, month: string, opts?: ChangeOptions): Promise<{ outcome: MonthOutcome; stored: string | null }> {
  type Result = { outcome: MonthOutcome; stored: string | null };
  return app.runner.run<Result>('usage.new-month', (store) => {
    const stored = store.jobState.get(MONTH_STATE);
    if (stored === month) return { commit: () => ({ outcome: 'same', stored }) };
    if (stored !== null && month < stored) return { commit: () => ({ outcome: 'behind', stored }) };
    return {
      commit({ store }) {
        store.jobState.set(MONTH_STATE, month);
        if (stored === null) return { outcome: 'first', stored };
        store.usage.zeroAllUsage();
        return { outcome: 'started', stored };
      },
    };
  }, opts);
}

/** The usage month the store is in (null on a fresh database): read without a change. */
export const storedUsageMonth = (store: Store): string | null => store.jobState.get(MONTH_STATE);
