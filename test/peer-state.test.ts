// A peer's state is one rule a place (src/peer-state.ts): the data limit (the usage job, a
// peer's update and the metrics ask isOverLimit, the store's query runs overLimitSql, and both
// say the same), enabled and its reasons, and when the usage baseline is forgotten.
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { enabledBy, GB, isOverLimit, isTenthsLimit, leavesInterface, limitBytes, overLimitSql, wholeGB } from '../src/peer-state';

const t = suite('peer state: one rule for the jobs, the operations and SQL');

t('one GB is 2^30 bytes, as DESIGN.md says', () => {
  assert.is(GB, 2 ** 30);
});

t('a limit of 0 is no limit, however much was used', () => {
  assert.is(isOverLimit(0, 0), false);
  assert.is(isOverLimit(1000 * GB, 0), false);
});

t('a peer is over once its usage reaches the limit: equal is over, a byte less is not', () => {
  assert.is(isOverLimit(5 * GB, 5), true);
  assert.is(isOverLimit(5 * GB - 1, 5), false);
  assert.is(isOverLimit(5 * GB + 1, 5), true);
});

t('a limit in tenths of a GiB: over from its byte, rounded up (a tenth is not a whole number of bytes)', () => {
  assert.is(isOverLimit(1.5 * GB, 1.5), true);
  assert.is(isOverLimit(1.5 * GB - 1, 1.5), false);
  assert.is(limitBytes(1.1), Math.ceil((11 * GB) / 10));
  assert.is(isOverLimit(limitBytes(1.1), 1.1), true);
  assert.is(isOverLimit(limitBytes(1.1) - 1, 1.1), false);
  assert.is(isOverLimit(limitBytes(0.1), 0.1), true);
});

t('the contract\'s whole dataLimitGB of a limit: whole limits as they are, tenths rounded up; one decimal at most', () => {
  assert.equal([0, 5, 1.5, 0.1, 4.9, 8_388_607].map(wholeGB), [0, 5, 2, 1, 5, 8_388_607]);
  assert.equal([0, 1.5, 0.3, 2, 8_388_607].map(isTenthsLimit), [true, true, true, true, true]);
  assert.equal([1.55, -0.1, 8_388_607.1, Number.NaN, Infinity].map(isTenthsLimit), [false, false, false, false, false]);
});

t('SQLite judges every case as the function does', () => {
  const db = new Database(':memory:');
  const over = db.prepare(`SELECT ${overLimitSql('@usage', '@limit')} AS over`).pluck();
  const cases: Array<[number, number]> = [[0, 0], [1000 * GB, 0], [5 * GB, 5], [5 * GB - 1, 5], [5 * GB + 1, 5], [0, 1], [GB, 1], [10_000 * GB, 9999],
    [1.5 * GB, 1.5], [1.5 * GB - 1, 1.5], [limitBytes(1.1), 1.1], [limitBytes(1.1) - 1, 1.1], [limitBytes(0.3), 0.3], [limitBytes(0.3) - 1, 0.3]];
  for (const [usage, limit] of cases) assert.is(over.get({ usage, limit }) === 1, isOverLimit(usage, limit), `${usage} bytes against ${limit} GB`);
  db.close();
});

t('a peer is enabled exactly when no reason holds it off', () => {
  assert.ok(enabledBy([]));
  assert.not.ok(enabledBy(['schedule']));
});

t('the baseline is forgotten when a change takes a peer off its interface, and only then', () => {
  assert.ok(leavesInterface({ enabled: true }, { enabled: false }));
  assert.ok(leavesInterface(null, { enabled: false }), 'made off');
  assert.not.ok(leavesInterface({ enabled: false }, { enabled: false }), 'off already: forgotten when it left');
  assert.not.ok(leavesInterface({ enabled: false }, { enabled: true }));
  assert.not.ok(leavesInterface({ enabled: true }, { enabled: true }));
});

t('every place that forgets a baseline asks leavesInterface first (one condition, not two)', () => {
  const root = path.join(__dirname, '..', '..', 'src');
  const calls: string[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (p.endsWith('.ts') && !p.endsWith(path.join('store', 'usage.ts'))) {
        for (const line of fs.readFileSync(p, 'utf8').split('\n')) if (line.includes('forgetBaseline(')) calls.push(`${path.relative(root, p)}: ${line.trim()}`);
      }
    }
  };
  walk(root);
  assert.ok(calls.length >= 4, calls.join('\n'));
  assert.equal(calls.filter((c) => !/if \(leavesInterface\(/.test(c)), []);
});

t.run();
