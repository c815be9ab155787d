import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import path from 'node:path';
import Database from 'better-sqlite3';
import { RowBatches } from '../src/store/row-batches';
import { tempDir } from './helpers/daemon';

const t = suite('statements run over many rows, a batch at a time');

function table() {
  const db = new Database(path.join(tempDir(), 'rows.db'));
  db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v INTEGER NOT NULL)');
  const batches = new RowBatches(db, (rows) => `INSERT INTO t (id, v) VALUES ${rows}`, 2, 4);
  const rows = () => db.prepare('SELECT id, v FROM t ORDER BY id').raw().all();
  return { db, batches, rows };
}

const expected = (n: number) => Array.from({ length: n }, (_v, i) => [i + 1, (i + 1) * 10]);

t('writes every row: none, fewer than a batch, whole batches, and whole batches with a remainder', () => {
  for (const n of [0, 3, 4, 8, 11]) {
    const { db, batches, rows } = table();
    batches.run(n, (i, args, at) => { args[at] = i + 1; args[at + 1] = (i + 1) * 10; });
    assert.equal(rows(), expected(n), `${n} rows`);
    db.close();
  }
});

t('values of one call never leak into the next: each call binds only its own rows', () => {
  const { db, batches, rows } = table();
  batches.run(6, (i, args, at) => { args[at] = i + 1; args[at + 1] = (i + 1) * 10; });
  // Fewer rows the second time: a batch left over from the first call must not be written again.
  batches.run(1, (_i, args, at) => { args[at] = 7; args[at + 1] = 70; });
  assert.equal(rows(), expected(7));
  db.close();
});

t('a refused row fails the call, and inside a transaction nothing of it is kept', () => {
  const { db, batches, rows } = table();
  const write = db.transaction(() => batches.run(9, (i, args, at) => { args[at] = i + 1; args[at + 1] = i === 6 ? null : (i + 1) * 10; }));
  assert.throws(() => write(), /NOT NULL/);
  assert.equal(rows(), []);
  db.close();
});

t.run();
