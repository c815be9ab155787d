// The clock watch's rule on made-up clocks: what is a jump, when one is undone, confirmed, or
// started again, and which time expiry and the monthly reset are given meanwhile.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ClockWatch, JUMP_MS } from '../src/jobs/clock-watch';

const t = suite('clock watch');
const MIN = 60_000;
const T = Date.parse('2026-11-28T00:00:00.000Z');

function watch(confirmMs = 60 * MIN) {
  const c = { wall: T, mono: 1000, said: [] as string[] };
  const w = new ClockWatch(() => new Date(c.wall), confirmMs, {
    jumped: (j) => c.said.push(`jumped ${j.offsetMs / MIN}`), undone: () => c.said.push('undone'), confirmed: () => c.said.push('confirmed'),
  }, () => c.mono);
  /** Both clocks move `ms` on, then the wall clock `step` more. */
  const pass = (ms: number, step = 0) => { c.mono += ms; c.wall += ms + step; w.check(); };
  return { c, w, pass };
}

t('small steps of the wall clock (NTP) are followed, not jumps', () => {
  const { c, w, pass } = watch();
  for (let i = 0; i < 10; i++) pass(1000, JUMP_MS / 2);
  assert.equal(c.said, []);
  assert.is(w.now().getTime(), c.wall);
});

t('a jump ahead: the jobs get the time before it, carried on, until it is undone', () => {
  const { c, w, pass } = watch();
  pass(1000, 365 * 24 * 60 * MIN);
  assert.equal(c.said, [`jumped ${365 * 24 * 60}`]);
  pass(10 * MIN);
  assert.is(w.now().getTime(), T + 1000 + 10 * MIN, 'the clock before the jump, moved by the time that passed');
  pass(1000, -365 * 24 * 60 * MIN);
  assert.equal(c.said.at(-1), 'undone');
  assert.is(w.pending(), null);
  assert.is(w.now().getTime(), c.wall);
});

t('a jump kept in step for the confirmation time is confirmed; a new jump meanwhile starts the wait again', () => {
  const { c, w, pass } = watch(30 * MIN);
  pass(1000, -2 * 60 * MIN);
  pass(20 * MIN);
  pass(1000, 24 * 60 * MIN);
  assert.equal(c.said, ['jumped -120', 'jumped 1320']);
  pass(29 * MIN);
  assert.ok(w.pending(), 'still waiting: the wait started at the second jump');
  pass(2 * MIN);
  assert.equal(c.said.at(-1), 'confirmed');
  assert.is(w.now().getTime(), c.wall);
});

t.run();
