// The access scheduler: every scheduled peer's next boundary in a min-heap; one timer wakes
// at the earliest boundary (or after 60 s, to notice a clock that jumped), takes every peer
// whose boundary is due and applies them as one change (src/ops/schedules.ts). A minute
// without a due boundary looks at the heap's top and nothing else. The heap follows the
// change runner's typed notices (a schedule set, changed, cleared, a peer deleted), so the
// API's changes reach it without a scan; start-up, a server changed (a restore) and a clock that
// went back rebuild it from the one query of scheduled peers and put right what is wrong.
import type { App } from '../app';
import type { ChangeNotice } from '../events/bus';
import { jobActor } from '../ops/runner';
import { applySchedules, type ScheduleOutcome } from '../ops/schedules';
import { BoundaryHeap } from '../schedule/heap';
import { stateAt } from '../schedule/next-transition';
import type { Schedule } from '../schedule/rules';

/** The longest the timer sleeps: a clock stepped by NTP is noticed within it. */
export const MAX_SLEEP_MS = 60_000;
/** A batch that failed (a kernel refusal) is tried again after this. */
const RETRY_MS = 60_000;
const ACTOR = jobActor('access schedule');

export interface AccessScheduler {
  /** Applies every boundary due by the clock now; null when none was due. */
  tick(): Promise<ScheduleOutcome | null>;
  /** Reads every scheduled peer again and applies the state each should have now. */
  rebuild(): Promise<ScheduleOutcome | null>;
  /** The earliest boundary kept (ms), and how many peers are kept. */
  nextAt(): number | null;
  size(): number;
  stop(): Promise<void>;
}

export interface SchedulerOptions {
  /** The clock (the app's by default); tests pass their own. */
  clock?: () => Date;
  /** False: no timer, the caller ticks (tests with a clock of their own). */
  timer?: boolean;
}

export async function startAccessSchedules(app: App, opts: SchedulerOptions = {}): Promise<AccessScheduler> {
  const clock = opts.clock ?? (() => app.now());
  const heap = new BoundaryHeap();
  /** Peers an event kept while a batch was applied (only then is it filled). */
  const touched = new Set<number>();
  let applying = false;
  let timer: NodeJS.Timeout | null = null;
  let armedFor = Infinity;
  let lastNow = clock().getTime();
  let running: Promise<ScheduleOutcome | null> | null = null;
  let stopped = false;

  const keep = (id: number, schedule: Schedule | null | undefined, now: number): void => {
    if (schedule) heap.set(id, stateAt(schedule, now).next); else heap.delete(id);
  };

  const arm = (): void => {
    if (stopped || opts.timer === false) return;
    const now = clock().getTime();
    const top = heap.peekAt();
    const at = Math.min(top ?? Infinity, now + MAX_SLEEP_MS);
    if (timer && at >= armedFor) return;
    if (timer) clearTimeout(timer);
    armedFor = at;
    timer = setTimeout(() => { timer = null; armedFor = Infinity; void wake(); }, Math.max(0, at - now));
    timer.unref();
  };

  const apply = async (ids: number[]): Promise<ScheduleOutcome | null> => {
    touched.clear();
    applying = true;
    try {
      const outcome = await applySchedules(app, ids, clock, { actor: ACTOR });
      const now = clock().getTime();
      // A peer whose change made an event was kept by it (as was any changed since); the rest here.
      for (const id of ids) if (!touched.has(id)) keep(id, outcome.schedules.get(id), now);
      if (outcome.closed.length || outcome.opened.length) app.log.info('access schedules applied', { closed: outcome.closed.length, opened: outcome.opened.length });
      return outcome;
    } catch (err) {
      const retry = clock().getTime() + RETRY_MS;
      for (const id of ids) if (!touched.has(id) && heap.get(id) === undefined) heap.set(id, retry);
      app.log.error('applying access schedules failed; tried again in a minute', { peers: ids.length, error: err instanceof Error ? err.message : String(err) });
      return null;
    } finally {
      applying = false;
      touched.clear();
    }
  };

  const tickOnce = async (): Promise<ScheduleOutcome | null> => {
    const now = clock().getTime();
    // A clock that went back leaves boundaries too far ahead: read them all again.
    if (now < lastNow - 2 * MAX_SLEEP_MS) { lastNow = now; return rebuildOnce(); }
    lastNow = now;
    const top = heap.peekAt();
    if (top === null || top > now) return null;
    return apply(heap.popDue(now));
  };

  const rebuildOnce = async (): Promise<ScheduleOutcome | null> => {
    const now = clock().getTime();
    heap.clear();
    const wrong: number[] = [];
    for (const { id, schedule, closed } of app.store.peers.scheduled()) {
      const st = stateAt(schedule, now);
      heap.set(id, st.next);
      if (st.open === closed) wrong.push(id);
    }
    return wrong.length ? apply(wrong) : null;
  };

  // One at a time: a tick asked for while one runs waits for it.
  const serial = (fn: () => Promise<ScheduleOutcome | null>): Promise<ScheduleOutcome | null> => {
    const p = (running ?? Promise.resolve(null)).then(fn, fn).finally(() => { if (running === p) running = null; arm(); });
    running = p;
    return p;
  };

  const wake = async (): Promise<void> => { await serial(tickOnce); };

  const onChange = (n: ChangeNotice): void => {
    // A server made, changed or gone (a restore into the running daemon replaces every row
    // and announces only these): the schedules are read again, as at start.
    if (n.kind === 'server') { void serial(rebuildOnce); return; }
    if (applying) touched.add(n.id);
    if (n.gone) heap.delete(n.id);
    else keep(n.id, n.schedule, clock().getTime());
    arm();
  };
  const unsubscribe = app.events.onChange(onChange);

  await serial(rebuildOnce);

  return {
    tick: () => serial(tickOnce),
    rebuild: () => serial(rebuildOnce),
    nextAt: () => heap.peekAt(),
    size: () => heap.size,
    async stop() {
      stopped = true;
      unsubscribe();
      if (timer) clearTimeout(timer);
      timer = null;
      await running;
    },
  };
}
