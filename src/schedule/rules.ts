// An access schedule as a peer carries it: an IANA time zone and weekly windows of local
// wall-clock time. Checked here once (the API's 400 names the field); stored and shown as
// the normalised value, so every later reader may trust it.
import { canonicalZone, hasZoneData } from './zone';

export const DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type Day = typeof DAYS[number];

export interface ScheduleWindow {
  /** The local days the window starts on, in canonical order. */
  days: Day[];
  /** "HH:MM", local wall-clock time the window opens. */
  from: string;
  /** "HH:MM" (or "24:00"); at or before `from`, the window runs into the next day. */
  to: string;
}

export interface Schedule {
  timezone: string;
  windows: ScheduleWindow[];
}

/** A schedule that breaks a rule: the dotted field (`schedule.windows[0].from`) and why. */
export class ScheduleProblem extends Error {
  constructor(readonly field: string, message: string) { super(message); }
}

export const MAX_WINDOWS = 32;
const HHMM = /^([01]\d|2[0-3]):([0-5]\d)$/;

/** Minutes after local midnight of "HH:MM" ("24:00" only where `allowEnd`). */
export function minutesOf(text: string, allowEnd = false): number | null {
  if (text === '24:00') return allowEnd ? 1440 : null;
  let m = MINUTES.get(text);
  if (m === undefined) {
    const found = HHMM.exec(text);
    if (!found) return null;
    m = Number(found[1]) * 60 + Number(found[2]);
    MINUTES.set(text, m);
  }
  return m;
}
/** Every valid "HH:MM" read once (1,440 of them at most). */
const MINUTES = new Map<string, number>();

/** The schedule a body gives, normalised (canonical zone name, days in week order); throws ScheduleProblem. */
export function parseSchedule(value: unknown, field = 'schedule'): Schedule | null {
  if (value === null) return null;
  if (typeof value !== 'object' || Array.isArray(value)) throw new ScheduleProblem(field, 'must be null or an object {timezone, windows}');
  const o = value as Record<string, unknown>;
  for (const key of Object.keys(o)) if (key !== 'timezone' && key !== 'windows') throw new ScheduleProblem(`${field}.${key}`, 'is not a schedule field (timezone, windows)');
  if (typeof o.timezone !== 'string' || o.timezone.length === 0 || o.timezone.length > 64) throw new ScheduleProblem(`${field}.timezone`, 'must be an IANA time zone name such as Europe/Berlin');
  if (!hasZoneData()) throw new ScheduleProblem(`${field}.timezone`, 'cannot be read: this node was built without Intl (ICU), so it has no time zones (docs/schedules.md)');
  const timezone = canonicalZone(o.timezone);
  if (timezone === null) throw new ScheduleProblem(`${field}.timezone`, `${JSON.stringify(o.timezone)} is not an IANA time zone this daemon knows`);
  if (!Array.isArray(o.windows)) throw new ScheduleProblem(`${field}.windows`, 'must be a list of {days, from, to}');
  if (o.windows.length === 0) throw new ScheduleProblem(`${field}.windows`, 'must hold at least one window (null as the schedule for none)');
  if (o.windows.length > MAX_WINDOWS) throw new ScheduleProblem(`${field}.windows`, `must hold at most ${MAX_WINDOWS} windows`);
  const windows = o.windows.map((w, i) => parseWindow(w, `${field}.windows[${i}]`));
  return { timezone, windows };
}

function parseWindow(value: unknown, field: string): ScheduleWindow {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ScheduleProblem(field, 'must be an object {days, from, to}');
  const o = value as Record<string, unknown>;
  for (const key of Object.keys(o)) if (!['days', 'from', 'to'].includes(key)) throw new ScheduleProblem(`${field}.${key}`, 'is not a window field (days, from, to)');
  if (!Array.isArray(o.days) || o.days.length === 0) throw new ScheduleProblem(`${field}.days`, `must be a non-empty list of ${DAYS.join(', ')}`);
  for (const [j, d] of o.days.entries()) {
    if (typeof d !== 'string' || !(DAYS as readonly string[]).includes(d)) throw new ScheduleProblem(`${field}.days[${j}]`, `must be one of ${DAYS.join(', ')}`);
  }
  const days = DAYS.filter((d) => (o.days as string[]).includes(d));
  if (typeof o.from !== 'string' || minutesOf(o.from) === null) throw new ScheduleProblem(`${field}.from`, 'must be a time "HH:MM" from 00:00 to 23:59');
  if (typeof o.to !== 'string' || minutesOf(o.to, true) === null) throw new ScheduleProblem(`${field}.to`, 'must be a time "HH:MM" from 00:00 to 24:00');
  if (minutesOf(o.to, true) === minutesOf(o.from)) throw new ScheduleProblem(`${field}.to`, 'must differ from `from` (00:00 to 24:00 is a whole day)');
  return { days, from: o.from, to: o.to };
}

/** Stored as JSON text; a row's value was checked on its way in. */
export const scheduleText = (s: Schedule | null): string | null => (s === null ? null : JSON.stringify(s));
export const scheduleOf = (text: string | null): Schedule | null => (text === null ? null : JSON.parse(text) as Schedule);
