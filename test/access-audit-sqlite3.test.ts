// The audit log's triggers against the sqlite3 command itself, on the daemon's file while
// the daemon runs: UPDATE and DELETE refused, the prune's window closed to it.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import * as assert from 'uvu/assert';
import { suiteNeeding } from './helpers/root';
import { call, client, startTestDaemon, type TestDaemon } from './helpers/daemon';
import { DB_FILE } from '../src/store/db';

const t = suiteNeeding('audit log refuses changes made with the sqlite3 command', ['sqlite3']);
let d: TestDaemon;
const sqlite3 = (sql: string) => spawnSync('sqlite3', ['-bail', path.join(d.dataDir, DB_FILE), sql], { encoding: 'utf8' });

t.before(async () => {
  d = await startTestDaemon();
  assert.is((await call(d.url, 'POST', '/api/session', { key: 'wgk_wrong' }, { 'content-type': 'application/json' })).status, 401);
  assert.is((await client(d).post('/api/apikeys', { name: 'ops', role: 'operator' })).status, 201);
});
t.after(async () => { await d.stop(); });

const count = () => Number(sqlite3('SELECT COUNT(*) FROM audit_log;').stdout.trim());

t('the rows are there to be read', () => {
  assert.ok(count() >= 1);
  assert.match(sqlite3('SELECT action FROM audit_log;').stdout, /session\.sign-in-failed/);
});

t('UPDATE is refused by the trigger, and the row stays as it was', () => {
  const r = sqlite3("UPDATE audit_log SET action = 'nothing';");
  assert.is.not(r.status, 0);
  assert.match(r.stderr, /append-only: rows cannot be changed/);
  assert.is(sqlite3("SELECT COUNT(*) FROM audit_log WHERE action = 'nothing';").stdout.trim(), '0');
});

t('DELETE is refused by the trigger, whatever the rows', () => {
  const before = count();
  for (const sql of ['DELETE FROM audit_log;', 'DELETE FROM audit_log WHERE id = 1;', "DELETE FROM audit_log WHERE at < '9999';"]) {
    const r = sqlite3(sql);
    assert.is.not(r.status, 0, sql);
    assert.match(r.stderr, /append-only/, sql);
  }
  assert.is(count(), before);
});

t('the prune\'s cut-off cannot be set from sqlite3, nor its row replaced or deleted', () => {
  for (const sql of ["UPDATE audit_prune SET before = '9999';", "INSERT OR REPLACE INTO audit_prune VALUES (1, '9999');", 'DELETE FROM audit_prune;']) {
    const r = sqlite3(sql);
    assert.is.not(r.status, 0, sql);
  }
  assert.is(sqlite3('SELECT before IS NULL FROM audit_prune;').stdout.trim(), '1');
});

t.run();
