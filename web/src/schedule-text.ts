// A peer's access schedule in words, for the peers table and the peer's page.
import type { Schedule } from './types';
import { currentLanguage, t } from './i18n';

export const WEEK = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
/** A day's short name in the page's language, by Intl (2024-01-01 was a Monday). */
export const dayName = (day: string): string =>
  new Date(Date.UTC(2024, 0, 1 + WEEK.indexOf(day as (typeof WEEK)[number]))).toLocaleDateString(currentLanguage(), { weekday: 'short', timeZone: 'UTC' });

/** "Mon–Fri" for a run of days, "Mon, Wed" otherwise. */
export function describeDays(days: readonly string[]): string {
  const idx = WEEK.map((d, i) => (days.includes(d) ? i : -1)).filter((i) => i >= 0);
  if (idx.length === 7) return t('schedule.everyDay');
  const contiguous = idx.length > 2 && idx[idx.length - 1] - idx[0] === idx.length - 1;
  return contiguous ? `${dayName(WEEK[idx[0]])}–${dayName(WEEK[idx[idx.length - 1]])}` : idx.map((i) => dayName(WEEK[i])).join(', ');
}

/** "Mon–Fri 08:00–18:00; Sat 10:00–14:00 (Europe/Berlin)". */
export function describeSchedule(s: Schedule | null): string {
  if (!s) return t('schedule.always');
  const windows = s.windows.map((w) => `${describeDays(w.days)} ${w.from}–${w.to}${w.to <= w.from ? ` ${t('schedule.nextDay')}` : ''}`);
  return `${windows.join('; ')} (${s.timezone})`;
}
