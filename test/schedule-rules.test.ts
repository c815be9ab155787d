import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parseSchedule, ScheduleProblem, type Schedule } from '../src/schedule/rules';
import { isOpenAt, stateAt } from '../src/schedule/next-transition';
import { BoundaryHeap } from '../src/schedule/heap';

const t = suite('access schedules: open windows, boundaries, daylight saving and the heap, at explicit times');

const at = (iso: string): number => Date.parse(iso);
const iso = (ms: number): string => new Date(ms).toISOString().replace('.000', '');
const sched = (timezone: string, ...windows: Array<[string[], string, string]>): Schedule =>
  parseSchedule({ timezone, windows: windows.map(([days, from, to]) => ({ days, from, to })) })!;

/** Every boundary from `from` to `until`, walking next to next, as [instant, open after]. */
function walk(s: Schedule, from: number, until: number): Array<[string, boolean]> {
  const out: Array<[string, boolean]> = [];
  let now = from;
  for (let guard = 0; guard < 1000; guard++) {
    const { next } = stateAt(s, now);
    if (next > until) break;
    const after = isOpenAt(s, next);
    if (after !== isOpenAt(s, next - 1)) out.push([iso(next), after]);
    now = next;
  }
  return out;
}

/** Independent oracle: the zone's wall clock as Intl prints it, compared with the window as text. */
function wallOpen(zone: string, ms: number, days: string[], from: string, to: string): boolean {
  const parts = new Intl.DateTimeFormat('en-GB', { timeZone: zone, weekday: 'short', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).formatToParts(ms);
  const get = (type: string) => parts.find((p) => p.type === type)!.value;
  const day = get('weekday').toLowerCase().slice(0, 3);
  const hhmm = `${get('hour')}:${get('minute')}`;
  const week = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];
  const prev = week[(week.indexOf(day) + 6) % 7];
  if (to > from) return days.includes(day) && hhmm >= from && hhmm < to;
  return (days.includes(day) && hhmm >= from) || (days.includes(prev) && hhmm < to);
}

t('a weekday window opens and closes ten times through a whole winter week in Berlin (07:00 and 17:00 UTC)', () => {
  const s = sched('Europe/Berlin', [['mon', 'tue', 'wed', 'thu', 'fri'], '08:00', '18:00']);
  const seen = walk(s, at('2026-01-11T23:00:00Z'), at('2026-01-18T23:00:00Z'));
  const expected: Array<[string, boolean]> = [];
  for (const d of [12, 13, 14, 15, 16]) expected.push([`2026-01-${d}T07:00:00Z`, true], [`2026-01-${d}T17:00:00Z`, false]);
  assert.equal(seen, expected);
});

t('every quarter hour of the weeks around both daylight-saving changes agrees with the zone clock Intl prints', () => {
  const cases: Array<[string, string[], string, string]> = [
    ['Europe/Berlin', ['mon', 'wed', 'sat', 'sun'], '07:15', '19:45'],
    ['Europe/Berlin', ['fri', 'sat', 'sun'], '22:00', '06:00'],
    ['Australia/Sydney', ['sat', 'sun'], '09:00', '17:30'],
    ['Australia/Sydney', ['sun', 'mon'], '20:00', '01:00'],
    ['America/New_York', ['tue', 'sun'], '05:00', '23:00'],
  ];
  const weeks = ['2026-03-25T00:00:00Z', '2026-10-21T00:00:00Z', '2026-04-01T00:00:00Z', '2026-09-30T00:00:00Z', '2026-03-06T00:00:00Z', '2026-11-01T00:00:00Z'];
  let checked = 0;
  for (const [zone, days, from, to] of cases) {
    const s = sched(zone, [days, from, to]);
    for (const w of weeks) {
      for (let ms = at(w); ms < at(w) + 8 * 86_400_000; ms += 15 * 60_000) {
        const want = wallOpen(zone, ms, days, from, to);
        if (isOpenAt(s, ms) !== want) assert.unreachable(`${zone} ${days} ${from}-${to} at ${iso(ms)}: expected ${want}`);
        // The boundary it names is the first instant the state differs.
        const st = stateAt(s, ms);
        assert.is(isOpenAt(s, st.next), !st.open, `${zone} at ${iso(ms)}: next ${iso(st.next)} flips it`);
        checked++;
      }
    }
  }
  assert.ok(checked > 5000);
});

t('Berlin, last Sunday of March: 02:30 does not exist, a window from it opens at 03:00 CEST (01:00 UTC)', () => {
  const s = sched('Europe/Berlin', [['sun'], '02:30', '04:00']);
  assert.equal(walk(s, at('2026-03-28T12:00:00Z'), at('2026-03-29T12:00:00Z')), [['2026-03-29T01:00:00Z', true], ['2026-03-29T02:00:00Z', false]]);
  // A window wholly inside the gap does not happen that day; on the next Sunday it does.
  const gone = sched('Europe/Berlin', [['sun'], '02:00', '02:45']);
  assert.equal(walk(gone, at('2026-03-28T12:00:00Z'), at('2026-04-05T12:00:00Z')), [['2026-04-05T00:00:00Z', true], ['2026-04-05T00:45:00Z', false]]);
  // A window across the gap is an hour shorter in real time.
  const across = sched('Europe/Berlin', [['sun'], '01:00', '05:00']);
  assert.equal(walk(across, at('2026-03-28T12:00:00Z'), at('2026-03-29T12:00:00Z')), [['2026-03-29T00:00:00Z', true], ['2026-03-29T03:00:00Z', false]]);
});

t('Berlin, last Sunday of October: 02:30 happens twice, a window starts and ends at its first occurrence', () => {
  const s = sched('Europe/Berlin', [['sun'], '02:30', '03:30']);
  // First 02:30 is CEST (00:30 UTC); 03:30 is CET (02:30 UTC): two hours of real time.
  assert.equal(walk(s, at('2026-10-24T12:00:00Z'), at('2026-10-25T12:00:00Z')), [['2026-10-25T00:30:00Z', true], ['2026-10-25T02:30:00Z', false]]);
  const ending = sched('Europe/Berlin', [['sun'], '01:00', '02:30']);
  assert.equal(walk(ending, at('2026-10-24T12:00:00Z'), at('2026-10-25T12:00:00Z')), [['2026-10-24T23:00:00Z', true], ['2026-10-25T00:30:00Z', false]]);
  // A night window across the change is an hour longer: Saturday 22:00 CEST to Sunday 06:00 CET.
  const night = sched('Europe/Berlin', [['sat'], '22:00', '06:00']);
  assert.equal(walk(night, at('2026-10-24T12:00:00Z'), at('2026-10-25T12:00:00Z')), [['2026-10-24T20:00:00Z', true], ['2026-10-25T05:00:00Z', false]]);
});

t('Sydney, south of the equator: clocks go back on the first Sunday of April and forward on the first Sunday of October', () => {
  const s = sched('Australia/Sydney', [['sun'], '02:30', '04:00']);
  // 5 April: first 02:30 is AEDT (15:30 UTC the day before), 04:00 AEST is 18:00 UTC.
  assert.equal(walk(s, at('2026-04-04T00:00:00Z'), at('2026-04-05T00:00:00Z')), [['2026-04-04T15:30:00Z', true], ['2026-04-04T18:00:00Z', false]]);
  // 4 October: 02:30 does not exist; the window opens at 03:00 AEDT (16:00 UTC) and ends at 04:00 AEDT.
  assert.equal(walk(s, at('2026-10-03T00:00:00Z'), at('2026-10-04T00:00:00Z')), [['2026-10-03T16:00:00Z', true], ['2026-10-03T17:00:00Z', false]]);
});

t('a window past midnight runs into the next day; adjacent and overlapping windows make no boundary between them', () => {
  const s = sched('UTC', [['fri'], '22:00', '02:00']);
  assert.is(isOpenAt(s, at('2026-01-16T21:59:00Z')), false);
  assert.is(isOpenAt(s, at('2026-01-16T22:00:00Z')), true);
  assert.is(isOpenAt(s, at('2026-01-17T01:59:59Z')), true);
  assert.is(isOpenAt(s, at('2026-01-17T02:00:00Z')), false);
  assert.equal(stateAt(s, at('2026-01-16T12:00:00Z')), { open: false, next: at('2026-01-16T22:00:00Z') });
  // Saturday's own window does not open because Friday's ran into Saturday.
  assert.is(isOpenAt(s, at('2026-01-17T23:00:00Z')), false);
  const split = sched('UTC', [['mon'], '08:00', '12:00'], [['mon'], '12:00', '18:00'], [['mon'], '17:00', '20:00']);
  assert.equal(stateAt(split, at('2026-01-12T09:00:00Z')), { open: true, next: at('2026-01-12T20:00:00Z') });
  const chain = sched('UTC', [['sun'], '20:00', '00:00'], [['mon'], '00:00', '06:00']);
  assert.equal(stateAt(chain, at('2026-01-11T21:00:00Z')), { open: true, next: at('2026-01-12T06:00:00Z') });
});

t('a whole day is 00:00 to 24:00; a schedule open all week still names a re-check ahead', () => {
  const s = sched('UTC', [['sun'], '00:00', '24:00']);
  assert.equal(stateAt(s, at('2026-01-11T05:00:00Z')), { open: true, next: at('2026-01-12T00:00:00Z') });
  const always = sched('UTC', [['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'], '00:00', '24:00']);
  const st = stateAt(always, at('2026-01-11T05:00:00Z'));
  assert.is(st.open, true);
  assert.ok(st.next > at('2026-01-17T00:00:00Z'), iso(st.next));
});

t('the days list picks weekdays in the zone, not in UTC', () => {
  // Monday 00:30 in Auckland is Sunday 11:30 UTC.
  const s = sched('Pacific/Auckland', [['mon'], '00:00', '01:00']);
  assert.is(isOpenAt(s, at('2026-01-11T11:30:00Z')), true);
  assert.is(isOpenAt(s, at('2026-01-12T00:30:00Z')), false);
});

t('bad schedules are refused naming the field; good ones are normalised', () => {
  const problem = (v: unknown): string => {
    try { parseSchedule(v); } catch (err) { assert.instance(err, ScheduleProblem); return `${(err as ScheduleProblem).field}: ${(err as Error).message}`; }
    return 'accepted';
  };
  const w = { days: ['mon'], from: '08:00', to: '18:00' };
  assert.match(problem({ timezone: 'Mars/Olympus', windows: [w] }), /^schedule\.timezone: /);
  assert.match(problem({ timezone: 'UTC', windows: [] }), /^schedule\.windows: /);
  assert.match(problem({ timezone: 'UTC', windows: [w, { ...w, from: '8:00' }] }), /^schedule\.windows\[1\]\.from: /);
  assert.match(problem({ timezone: 'UTC', windows: [{ ...w, to: '24:01' }] }), /^schedule\.windows\[0\]\.to: /);
  assert.match(problem({ timezone: 'UTC', windows: [{ ...w, to: '08:00' }] }), /^schedule\.windows\[0\]\.to: must differ/);
  assert.match(problem({ timezone: 'UTC', windows: [{ ...w, days: ['mon', 'someday'] }] }), /^schedule\.windows\[0\]\.days\[1\]: /);
  assert.match(problem({ timezone: 'UTC', windows: [{ ...w, days: [] }] }), /^schedule\.windows\[0\]\.days: /);
  assert.match(problem({ timezone: 'UTC', windows: [w], extra: 1 }), /^schedule\.extra: /);
  assert.match(problem('always'), /^schedule: /);
  assert.is(parseSchedule(null), null);
  assert.equal(parseSchedule({ timezone: 'europe/berlin', windows: [{ days: ['sun', 'mon', 'sun'], from: '22:00', to: '06:00' }] }),
    { timezone: 'Europe/Berlin', windows: [{ days: ['mon', 'sun'], from: '22:00', to: '06:00' }] });
});

t('the heap gives boundaries in time order through sets, moves and deletes', () => {
  const heap = new BoundaryHeap();
  const want = new Map<number, number>();
  let seed = 7;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  for (let i = 0; i < 5000; i++) {
    const id = Math.floor(rand() * 800);
    if (rand() < 0.2) { heap.delete(id); want.delete(id); } else { const when = Math.floor(rand() * 1e6); heap.set(id, when); want.set(id, when); }
  }
  assert.is(heap.size, want.size);
  const sorted = [...want].sort((a, b) => a[1] - b[1] || a[0] - b[0]);
  assert.is(heap.peekAt(), sorted[0][1]);
  const mid = sorted[Math.floor(sorted.length / 2)][1];
  const due = heap.popDue(mid);
  assert.equal(due.map((id) => want.get(id)!), sorted.filter(([, w]) => w <= mid).map(([, w]) => w));
  assert.is(heap.size, sorted.filter(([, w]) => w > mid).length);
  assert.equal(heap.popDue(mid), []);
  let last = -1;
  for (const id of heap.popDue(Infinity)) { assert.ok(want.get(id)! >= last); last = want.get(id)!; }
  assert.is(heap.size, 0);
  assert.is(heap.peekAt(), null);
});

t.run();
