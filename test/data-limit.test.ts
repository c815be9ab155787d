// The data limit is one rule: the usage job, a peer's update and the metrics ask isOverLimit,
// the store's query of peers over their limit runs overLimitSql, and both say the same.
import Database from 'better-sqlite3';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { GB, isOverLimit, isTenthsLimit, limitBytes, overLimitSql, wholeGB } from '../src/data-limit';

const t = suite('data limit: one rule for the jobs, the operations and SQL');

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

t.run();
