// A peer's access schedule in words, for the peers table and the peer's page.
import type { Schedule } from './types';

export const WEEK = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
const SHORT: Record<string, string> = { mon: 'Mon', tue: 'Tue', wed: 'Wed', thu: 'Thu', fri: 'Fri', sat: 'Sat', sun: 'Sun' };

/** "Mon–Fri" for a run of days, "Mon, Wed" otherwise. */
export function describeDays(days: readonly string[]): string {
  const idx = WEEK.map((d, i) => (days.includes(d) ? i : -1)).filter((i) => i >= 0);
  if (idx.length === 7) return 'every day';
  const contiguous = idx.length > 2 && idx[idx.length - 1] - idx[0] === idx.length - 1;
  return contiguous ? `${SHORT[WEEK[idx[0]]]}–${SHORT[WEEK[idx[idx.length - 1]]]}` : idx.map((i) => SHORT[WEEK[i]]).join(', ');
}

/** "Mon–Fri 08:00–18:00; Sat 10:00–14:00 (Europe/Berlin)". */
export function describeSchedule(s: Schedule | null): string {
  if (!s) return 'always';
  const windows = s.windows.map((w) => `${describeDays(w.days)} ${w.from}–${w.to}${w.to <= w.from ? ' (next day)' : ''}`);
  return `${windows.join('; ')} (${s.timezone})`;
}
