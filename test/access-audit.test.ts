// The audit log on a real daemon and its real SQLite file: rows for role changes, share
// links and failed sign-ins; the triggers refusing UPDATE and DELETE to another connection
// on the file (as sqlite3 would be); the daemon's prune by age; GET /api/audit; `wgcp audit`.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { call, client, startTestDaemon, type TestDaemon } from './helpers/daemon';
import { DB_FILE } from '../src/store/db';

const t = suite('audit log: append-only, pruned by the daemon alone, read by admins');
const run = promisify(execFile);
const CLI = path.join(__dirname, '../src/cli/main.js');
let d: TestDaemon;
let api: ReturnType<typeof client>;
const outside = () => new Database(path.join(d.dataDir, DB_FILE));
const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString();

t.before(async () => {
  d = await startTestDaemon();
  api = client(d);
});
t.after(async () => { await d.stop(); });

t('a failed sign-in is recorded with its source address and reason, never what was typed', async () => {
  const r = await call(d.url, 'POST', '/api/session', { key: 'wgk_not-a-key-at-all' }, { 'content-type': 'application/json' });
  assert.is(r.status, 401);
  const rows = (await api.get('/api/audit?action=session.sign-in-failed')).json.entries;
  assert.is(rows.length, 1);
  assert.is(rows[0].address, '127.0.0.1');
  assert.equal(rows[0].summary, { reason: 'unknown key' });
  assert.is(JSON.stringify(rows[0]).includes('not-a-key'), false);
});

t('a change names its actor: key id and name, role, source address, target and summary', async () => {
  const made = (await api.post('/api/apikeys', { name: 'helpdesk', role: 'viewer' })).json;
  assert.is((await api.put(`/api/apikeys/${made.id}`, { role: 'operator' })).status, 200);
  const [row] = (await api.get(`/api/audit?target=apikey:${made.id}`)).json.entries;
  assert.is(row.action, 'apikey.role');
  assert.equal(row.actor, { kind: 'apikey', id: 1, name: 'first-start' });
  assert.is(row.role, 'admin');
  assert.is(row.address, '127.0.0.1');
  assert.is(row.targetType, 'apikey');
  assert.is(row.targetId, String(made.id));
  assert.equal(row.summary, { name: 'helpdesk', from: 'viewer', to: 'operator' });
});

t('summaries leave secrets out, at any depth', () => {
  const store = d.daemon.app.store;
  const id = store.audit.append({ at: new Date().toISOString(), actor: { kind: 'job', id: null, name: 'test', role: null, address: null }, action: 'test.secrets', targetType: 'peer', targetId: 1,
    summary: { name: 'phone', privateKey: 'AAA', presharedKey: 'BBB', publicKey: 'pub', nested: { password: 'p', token: 't', secret: 's', kept: 1 } } });
  const row = store.audit.list({ action: 'test.secrets' }, { limit: 10 }).entries[0];
  assert.is(row.id, id);
  assert.equal(row.summary, { name: 'phone', publicKey: 'pub', nested: { kept: 1 } });
});

t('another connection on the file (as sqlite3) cannot change or delete a row, nor open the prune', () => {
  const db = outside();
  try {
    const n = (db.prepare('SELECT COUNT(*) FROM audit_log').pluck().get() as number);
    assert.ok(n >= 3);
    assert.throws(() => db.prepare("UPDATE audit_log SET action = 'nothing'").run(), /append-only/);
    assert.throws(() => db.prepare('DELETE FROM audit_log').run(), /append-only/);
    assert.throws(() => db.prepare('DELETE FROM audit_log WHERE id = 1').run(), /append-only/);
    assert.throws(() => db.prepare("UPDATE audit_prune SET before = '9999'").run(), /wgcp_audit_prune|pruned by wgcpd only/);
    assert.throws(() => db.prepare("INSERT OR REPLACE INTO audit_prune (id, before) VALUES (1, '9999')").run(), /one row/);
    assert.throws(() => db.prepare('DELETE FROM audit_prune').run(), /cannot be deleted/);
    // Appending stays possible: the log is append-only, not read-only.
    db.prepare("INSERT INTO audit_log (at, actor_kind, action) VALUES (?, 'cli', 'test.outside')").run(new Date().toISOString());
    assert.is(db.prepare('SELECT COUNT(*) FROM audit_log').pluck().get(), n + 1);
    assert.is(db.prepare('SELECT before FROM audit_prune').pluck().get(), null);
  } finally {
    db.close();
  }
});

t('the daemon prunes rows past WGCP_AUDIT_DAYS at start, and only those', async () => {
  const db = outside();
  const insert = db.prepare("INSERT INTO audit_log (at, actor_kind, action) VALUES (?, 'job', ?)");
  insert.run(daysAgo(500), 'test.old');
  insert.run(daysAgo(401), 'test.old');
  insert.run(daysAgo(399), 'test.kept');
  db.close();
  await d.stop();
  d = await startTestDaemon({ dataDir: d.dataDir });
  api = client(d);
  assert.is((await api.get('/api/audit?action=test.old')).json.entries.length, 0, 'rows over 400 days went');
  assert.is((await api.get('/api/audit?action=test.kept')).json.entries.length, 1, 'a row under 400 days stays');
  assert.ok((await api.get('/api/audit?action=session')).json.entries.length >= 1, 'new rows stay');
  await d.stop();
  d = await startTestDaemon({ dataDir: d.dataDir, env: { WGCP_AUDIT_DAYS: '30' } });
  api = client(d);
  assert.is((await api.get('/api/audit?action=test.kept')).json.entries.length, 0, 'WGCP_AUDIT_DAYS=30 prunes the 399-day row');
  const db2 = outside();
  try { assert.is(db2.prepare('SELECT before FROM audit_prune').pluck().get(), null, 'the prune closed its window'); } finally { db2.close(); }
});

t('GET /api/audit pages with a cursor through every row once, newest first, and filters by time', async () => {
  for (let i = 0; i < 7; i++) d.daemon.app.store.audit.append({ at: new Date(Date.UTC(2026, 0, 1 + i)).toISOString(), actor: { kind: 'job', id: null, name: 'paging', role: null, address: null }, action: 'test.page', targetType: 'peer', targetId: i });
  const seen: number[] = [];
  let cursor: number | null = null;
  do {
    const page: { entries: { id: number; targetId: string }[]; nextCursor: number | null } = (await api.get(`/api/audit?action=test.page&limit=3${cursor ? `&cursor=${cursor}` : ''}`)).json;
    assert.ok(page.entries.length <= 3);
    seen.push(...page.entries.map((e) => Number(e.targetId)));
    cursor = page.nextCursor;
  } while (cursor !== null);
  assert.equal(seen, [6, 5, 4, 3, 2, 1, 0]);
  const jan = (await api.get('/api/audit?action=test.page&since=2026-01-03T00:00:00Z&until=2026-01-05T00:00:00Z')).json.entries;
  assert.equal(jan.map((e: { targetId: string }) => e.targetId), ['3', '2']);
  assert.is((await api.get('/api/audit?actor=job&action=test.page&target=peer:4')).json.entries.length, 1);
  assert.is((await api.get('/api/audit?actor=apikey&action=test.page')).json.entries.length, 0);
});

t('bad audit queries are 400 naming the parameter', async () => {
  for (const [q, field] of [['limit=0', 'limit'], ['since=yesterday', 'since'], ['actor=robot', 'actor'], ['cursor=x', 'cursor'], ['action=DROP%20TABLE', 'action']]) {
    const r = await api.get(`/api/audit?${q}`);
    assert.is(r.status, 400, q);
    assert.is(r.json.field, field, q);
  }
});

t('wgcp audit --json prints JSON lines oldest first; --after continues from the last one shipped', async () => {
  const all = await run(process.execPath, [CLI, '--data-dir', d.dataDir, 'audit', '--json', '--action', 'test.page']);
  const lines = all.stdout.trim().split('\n').map((l) => JSON.parse(l));
  assert.equal(lines.map((l) => l.targetId), ['0', '1', '2', '3', '4', '5', '6']);
  const rest = await run(process.execPath, [CLI, '--data-dir', d.dataDir, 'audit', '--json', '--action', 'test.page', '--after', String(lines[4].id)]);
  assert.equal(rest.stdout.trim().split('\n').map((l) => JSON.parse(l).targetId), ['5', '6']);
  const bad = await run(process.execPath, [CLI, '--data-dir', d.dataDir, 'audit', '--since', 'soon']).catch((e) => e);
  assert.is(bad.code, 2);
  assert.match(bad.stderr, /since/);
});

t.run();
