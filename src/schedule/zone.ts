// Local wall-clock time in an IANA zone, through Intl (ICU's time-zone data). Only offsets
// come from Intl; dates and weekdays are plain arithmetic on "local milliseconds" (the wall
// clock read as if it were UTC). Results are cached per zone and local day, so a boundary
// of 10,000 peers in one zone asks Intl a few times, not 10,000.

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric',
    });
    formatters.set(zone, f);
  }
  return f;
}

/** Whether this node has Intl with time zones (a node built `--without-intl` has none). */
export const hasZoneData = (): boolean => typeof Intl === 'object' && typeof Intl.DateTimeFormat === 'function';

/** The zone's canonical name ("europe/berlin" -> "Europe/Berlin"), or null when Intl does not know it. */
export function canonicalZone(name: string): string | null {
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

/** The last offset asked per zone: a boundary of 10,000 peers in one zone asks for the same second 10,000 times. */
const lastOffset = new Map<string, { whole: number; offset: number }>();

/** The zone's offset from UTC at instant `t` (ms), in ms: wall clock = t + offset. */
export function offsetAt(zone: string, t: number): number {
  const whole = Math.floor(t / 1000) * 1000;
  const last = lastOffset.get(zone);
  if (last && last.whole === whole) return last.offset;
  const offset = readOffset(zone, whole);
  lastOffset.set(zone, { whole, offset });
  return offset;
}

function readOffset(zone: string, whole: number): number {
  const p: Record<string, number> = {};
  for (const part of formatter(zone).formatToParts(whole)) if (part.type !== 'literal') p[part.type] = Number(part.value);
  return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second) - whole;
}

/** The local day number (days since 1970-01-01 on the zone's wall clock) of instant `t`. */
export function localDayOf(zone: string, t: number): number {
  return Math.floor((t + offsetAt(zone, t)) / DAY_MS);
}

/** Monday 0 ... Sunday 6 of a local day number (day 0 was a Thursday). */
export const weekdayOf = (day: number): number => (((day + 3) % 7) + 7) % 7;

/** A local day as the zone lives it: its offsets around it and the instant they change (at most one change a day). */
interface ZoneDay { before: number; after: number; change: number | null }

const days = new Map<string, ZoneDay>();
const MAX_CACHED_DAYS = 4096;

function zoneDay(zone: string, day: number): ZoneDay {
  const key = `${zone} ${day}`;
  let zd = days.get(key);
  if (zd) return zd;
  // Every instant whose wall clock falls on this day lies in [lo, hi] (offsets span -12 h to +14 h).
  const lo = day * DAY_MS - 15 * HOUR_MS;
  const hi = (day + 1) * DAY_MS + 15 * HOUR_MS;
  const before = offsetAt(zone, lo);
  const after = offsetAt(zone, hi);
  let change: number | null = null;
  if (before !== after) {
    // The first second at which the offset is no longer `before`.
    let a = Math.floor(lo / 1000);
    let b = Math.ceil(hi / 1000);
    while (b - a > 1) {
      const mid = Math.floor((a + b) / 2);
      if (offsetAt(zone, mid * 1000) === before) a = mid; else b = mid;
    }
    change = b * 1000;
  }
  zd = { before, after, change };
  if (days.size >= MAX_CACHED_DAYS) days.clear();
  days.set(key, zd);
  return zd;
}

/**
 * The instant a local wall-clock time begins: the first instant at which the zone's clock
 * reads it or later. A time that happens twice (clocks going back) is its first occurrence;
 * a time that never happens (clocks going forward) is the end of the gap, when the clock
 * first reads a later time.
 */
export function instantOf(zone: string, day: number, minute: number): number {
  const local = day * DAY_MS + minute * 60_000;
  const zd = zoneDay(zone, Math.floor(local / DAY_MS));
  if (zd.change === null) return local - zd.before;
  const early = local - zd.before;
  const late = local - zd.after;
  const candidates: number[] = [];
  if (early < zd.change) candidates.push(early);
  if (late >= zd.change) candidates.push(late);
  return candidates.length ? Math.min(...candidates) : zd.change;
}

/** For tests: forget what was cached. */
export function clearZoneCache(): void { days.clear(); }
