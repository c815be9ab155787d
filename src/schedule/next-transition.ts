// Whether a schedule is open at an instant, and the next instant that changes it: pure, from
// the schedule and a time alone. A window opening on local day k runs from its `from` to its
// `to` on day k (or on day k+1 when `to` is at or before `from`); windows that touch or
// overlap merge, so two adjacent windows make no boundary between them.
import { minutesOf, DAYS, type Schedule } from './rules';
import { instantOf, localDayOf, weekdayOf } from './zone';

const DAY_MS = 86_400_000;

export interface ScheduleState {
  open: boolean;
  /** The next instant (ms) at which `open` changes, or a re-check at most about 9 days ahead. */
  next: number;
}

/** The schedule's open stretches (ms, [start, end)) from the day before `t` through the next 8 days, merged. */
export function openIntervals(s: Schedule, t: number): Array<[number, number]> {
  const today = localDayOf(s.timezone, t);
  const raw: Array<[number, number]> = [];
  for (let day = today - 1; day <= today + 8; day++) {
    const weekday = DAYS[weekdayOf(day)];
    for (const w of s.windows) {
      if (!w.days.includes(weekday)) continue;
      const from = minutesOf(w.from)!;
      const to = minutesOf(w.to, true)!;
      const start = instantOf(s.timezone, day, from);
      const end = to > from ? instantOf(s.timezone, day, to) : instantOf(s.timezone, day + 1, to % 1440);
      // Both ends in one gap of a clock going forward: the window does not happen that day.
      if (end > start) raw.push([start, end]);
    }
  }
  raw.sort((a, b) => a[0] - b[0]);
  const merged: Array<[number, number]> = [];
  for (const [start, end] of raw) {
    const last = merged[merged.length - 1];
    if (last && start <= last[1]) last[1] = Math.max(last[1], end);
    else merged.push([start, end]);
  }
  return merged;
}

/**
 * The intervals of a schedule computed at `from` serve any instant of the day after it: they
 * reach at least seven days beyond. Peers share schedules, so a boundary of 10,000 peers with
 * one schedule computes them once (a schedule is keyed by its JSON, about 1 µs; computing
 * its intervals about 15 µs).
 */
const memo = new Map<string, { from: number; intervals: Array<[number, number]> }>();
const MEMO_SIZE = 1024;

function intervalsAt(s: Schedule, t: number): Array<[number, number]> {
  const key = JSON.stringify(s);
  const m = memo.get(key);
  if (m && t >= m.from && t < m.from + DAY_MS) return m.intervals;
  const intervals = openIntervals(s, t);
  if (memo.size >= MEMO_SIZE) memo.clear();
  memo.set(key, { from: t, intervals });
  return intervals;
}

/** Open at `t` (ms) or not, and when that next changes. */
export function stateAt(s: Schedule, t: number): ScheduleState {
  const intervals = intervalsAt(s, t);
  for (const [start, end] of intervals) {
    if (t < start) return { open: false, next: start };
    if (t < end) return { open: true, next: end };
  }
  // No window within the horizon (every window fell into gaps): look again in a week.
  return { open: false, next: t + 7 * DAY_MS };
}

export const isOpenAt = (s: Schedule, t: number): boolean => stateAt(s, t).open;
