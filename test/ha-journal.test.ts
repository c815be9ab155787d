// The change journal of a standby pair, on one real daemon (no kernel, real SQLite): every
// committed change takes the next sequence in its own transaction; with a partner
// configured the rows it wrote to replicated tables are kept under that sequence, and
// nothing else is; the tail is bounded; the key file and keepalived's notice are guarded.
import fs from 'node:fs';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { call, client, startTestDaemon, tempDir, type TestDaemon } from './helpers/daemon';
import { askDaemon } from '../src/cli/daemon-socket';
import { recordUsage } from '../src/ops/usage';
import { LOCAL_TABLES } from '../src/store/ha';

const t = suite('standby pair: the change journal');

function keyFile(mode: number): string {
  const file = path.join(tempDir('wgcp-ha-key-'), 'key');
  fs.writeFileSync(file, 'the-pair-shared-secret-0123456789\n', { mode });
  fs.chmodSync(file, mode);
  return file;
}

// Usage totals journaled every cycle unless a test says otherwise.
const paired = (extra: Record<string, string> = {}, now?: () => Date) => startTestDaemon({
  env: { WGCP_HA_PARTNER: 'http://127.0.0.1:9', WGCP_HA_LISTEN: '127.0.0.1:0', WGCP_HA_KEY_FILE: keyFile(0o600), WGCP_HA_USAGE_EVERY_S: '0', ...extra },
  ...(now ? { options: { now } } : {}),
});
const promote = (d: TestDaemon) => askDaemon(d.dataDir, 'POST', '/api/ha/notify', { state: 'MASTER' });
const journal = (d: TestDaemon) => d.daemon.app.store.db.prepare('SELECT seq, tbl, op FROM ha_journal ORDER BY id').all() as { seq: number; tbl: string; op: string }[];
const position = (d: TestDaemon) => d.daemon.app.store.ha.state();
const addServer = (d: TestDaemon, name: string) => client(d).post('/api/servers', { name, endpoint: 'vpn.example.com:51820', mode: 'forward' });

t('alone: each committed change takes the next sequence; no journal is kept and notify has no partner to speak of', async () => {
  const d = await startTestDaemon();
  try {
    const before = (await client(d).get('/api/ha')).json;
    assert.equal(before, { role: 'alone', epoch: 1, sequence: before.sequence, partner: null });
    assert.is((await addServer(d, 'one')).status, 201);
    assert.is((await client(d).get('/api/ha')).json.sequence, before.sequence + 1);
    assert.equal(journal(d), []);
    assert.is(d.daemon.app.store.ha.prunedUpTo(), before.sequence + 1, 'changes made alone are not in any journal');
    const r = await promote(d);
    assert.is(r?.status, 409);
    assert.is(r?.json.code, 'WGCP_HA_NOT_PAIRED');
  } finally {
    await d.stop();
  }
});

t('a router with a partner starts as standby and refuses writes with 409, naming the primary', async () => {
  const d = await paired();
  try {
    assert.is((await client(d).get('/api/ha')).json.role, 'standby');
    const r = await addServer(d, 'refused');
    assert.is(r.status, 409);
    assert.equal(r.json, { error: 'this router is the standby', code: 'WGCP_HA_STANDBY', primary: 'http://127.0.0.1:9' });
    assert.is((await client(d).get('/api/servers')).status, 200, 'reads work');
  } finally {
    await d.stop();
  }
});

t('keepalived\'s notice is taken on the admin socket only', async () => {
  const d = await paired();
  try {
    const r = await client(d).post('/api/ha/notify', { state: 'MASTER' });
    assert.is(r.status, 403);
    assert.is((await client(d).get('/api/ha')).json.role, 'standby');
    assert.is((await askDaemon(d.dataDir, 'POST', '/api/ha/notify', { state: 'SOMETHING' }))?.status, 400);
  } finally {
    await d.stop();
  }
});

t('FAULT stops a primary acting as one; BACKUP keeps a standby following', async () => {
  const d = await paired();
  try {
    assert.is((await askDaemon(d.dataDir, 'POST', '/api/ha/notify', { state: 'BACKUP' }))?.json.role, 'standby');
    assert.is((await promote(d))?.json.role, 'primary');
    assert.is((await addServer(d, 'taken')).status, 201);
    const fault = await askDaemon(d.dataDir, 'POST', '/api/ha/notify', { state: 'FAULT' });
    assert.equal({ role: fault?.json.role, epoch: fault?.json.epoch }, { role: 'standby', epoch: 2 });
    assert.is((await addServer(d, 'refused')).status, 409);
  } finally {
    await d.stop();
  }
});

t('paired: a change\'s rows in replicated tables are journaled under its sequence; refusals, local tables and records add nothing', async () => {
  const d = await paired();
  try {
    const promoted = await promote(d);
    assert.is(promoted?.status, 200, JSON.stringify(promoted?.json));
    assert.equal({ role: promoted?.json.role, epoch: promoted?.json.epoch }, { role: 'primary', epoch: 2 });
    const s = await addServer(d, 'home');
    assert.is(s.status, 201);
    const seq = position(d).seq;
    const rows = journal(d).filter((r) => r.seq === seq);
    assert.ok(rows.some((r) => r.tbl === 'servers' && r.op === 'I'), JSON.stringify(rows));
    assert.ok(rows.some((r) => r.tbl === 'audit_log' && r.op === 'I'), 'the audit row travels with its change');
    const count = journal(d).length;
    assert.is((await client(d).post('/api/servers', { name: '' })).status, 400);
    assert.is(journal(d).length, count, 'a refused change journals nothing');
    assert.is(position(d).seq, seq, 'and takes no sequence');
    // A page sign-in is a record (a session row): local, outside any change.
    const signIn = await call(d.url, 'POST', '/api/session', { key: d.key }, { 'Content-Type': 'application/json', Origin: d.url });
    assert.ok(signIn.status < 300, signIn.text);
    assert.is(journal(d).length, count);
    assert.ok(journal(d).every((r) => !LOCAL_TABLES.has(r.tbl)), 'no local table is journaled');
  } finally {
    await d.stop();
  }
});

t('the usage cycle keeps each peer\'s last endpoint, journaled for the standby', async () => {
  const d = await paired();
  try {
    await promote(d);
    const s = (await addServer(d, 'home')).json;
    const p = (await client(d).post(`/api/servers/${s.id}/peers`, { name: 'phone' })).json;
    const at = new Date().toISOString();
    await recordUsage(d.daemon.app, () => ({ traffic: [], baselines: [] }), at, {}, new Map([[p.publicKey, '198.51.100.7:40123']]));
    assert.equal(d.daemon.app.store.ha.endpoints(), [{ peerId: p.id, endpoint: '198.51.100.7:40123', at }]);
    assert.ok(journal(d).some((r) => r.tbl === 'peer_endpoints' && r.seq === position(d).seq));
    const count = journal(d).length;
    await recordUsage(d.daemon.app, () => ({ traffic: [], baselines: [] }), new Date().toISOString(), {}, new Map([[p.publicKey, '198.51.100.7:40123']]));
    assert.is(journal(d).length, count, 'an endpoint that did not move is not written again');
  } finally {
    await d.stop();
  }
});

t('a usage cycle that moved only the primary\'s own counter baselines journals nothing; a new total does', async () => {
  const d = await paired();
  try {
    await promote(d);
    const s = (await addServer(d, 'home')).json;
    const p = (await client(d).post(`/api/servers/${s.id}/peers`, { name: 'phone' })).json;
    const cycle = (rx: number, traffic: number) => recordUsage(d.daemon.app, () => ({
      traffic: traffic ? [[p.id, s.id, traffic, 0] as const] : [], baselines: [[p.id, p.publicKey, rx, 0, 0] as const],
    }), new Date().toISOString());
    await cycle(100, 0);
    const usageRows = () => journal(d).filter((r) => r.tbl === 'peer_usage').length;
    const first = usageRows();
    await cycle(200, 0);
    assert.is(usageRows(), first, 'baselines alone stay on the primary');
    await cycle(300, 100);
    assert.is(usageRows(), first + 1, 'a new usage total is journaled');
  } finally {
    await d.stop();
  }
});

t('usage totals are journaled once every WGCP_HA_USAGE_EVERY_S: a cycle between only names the peers that moved, the next journaled one sends them', async () => {
  let clock = Date.parse('2026-11-28T08:00:00Z');
  const d = await paired({ WGCP_HA_USAGE_EVERY_S: '600' }, () => new Date(clock));
  try {
    await promote(d);
    const s = (await addServer(d, 'home')).json;
    const [p1, p2] = [(await client(d).post(`/api/servers/${s.id}/peers`, { name: 'one' })).json, (await client(d).post(`/api/servers/${s.id}/peers`, { name: 'two' })).json];
    const cycle = (...moved: [{ id: number }, number][]) => recordUsage(d.daemon.app, () => ({ traffic: moved.map(([p, bytes]) => [p.id, s.id, bytes, 0] as const), baselines: [] }), new Date(clock).toISOString());
    const usageRows = () => d.daemon.app.store.db.prepare("SELECT seq, json_extract(pk, '$.peer_id') AS peer, json_extract(row, '$.usage_bytes') AS bytes FROM ha_journal WHERE tbl = 'peer_usage' ORDER BY id").all() as { seq: number; peer: number; bytes: number }[];
    clock += 601_000;
    await cycle([p1, 100], [p2, 20]);
    const first = usageRows();
    assert.equal(first.map((r) => [r.peer, r.bytes]).slice(-2), [[p1.id, 100], [p2.id, 20]], 'a cycle past the interval is journaled');
    clock += 60_000;
    const seq = position(d).seq;
    await cycle([p2, 30]);
    assert.equal(usageRows(), first, 'a cycle within the interval journals no total');
    assert.is(position(d).seq, seq, 'and takes no sequence');
    clock += 600_000;
    await cycle([p1, 10]);
    const sent = usageRows().slice(first.length);
    assert.equal(sent.map((r) => [r.peer, r.bytes]).sort(), [[p1.id, 110], [p2.id, 50]], 'the next one sends what moved since, each row once');
    assert.ok(sent.every((r) => r.seq === position(d).seq));
  } finally {
    await d.stop();
  }
});

t('the journal keeps a bounded tail', async () => {
  const d = await paired({ WGCP_HA_JOURNAL_KEEP: '10' });
  try {
    await promote(d);
    const s = (await addServer(d, 'home')).json;
    for (let i = 0; i < 25; i++) assert.is((await client(d).post(`/api/servers/${s.id}/peers`, { name: `p${i}` })).status, 201);
    const { seq } = position(d);
    const kept = [...new Set(journal(d).map((r) => r.seq))];
    assert.ok(kept.length <= 20, `${kept.length} changes kept`);
    assert.ok(Math.min(...kept) > seq - 20);
    assert.ok(d.daemon.app.store.ha.prunedUpTo() >= seq - 20);
  } finally {
    await d.stop();
  }
});

t('the journal holds a bounded number of rows too: whole changes go, never the last one', async () => {
  const d = await paired();
  try {
    await promote(d);
    const s = (await addServer(d, 'home')).json;
    for (let i = 0; i < 6; i++) assert.is((await client(d).post(`/api/servers/${s.id}/peers`, { name: `p${i}` })).status, 201);
    const rows = journal(d);
    const last = rows[rows.length - 1].seq;
    // A bound of fewer rows than the last change wrote keeps that change alone.
    d.daemon.app.store.ha.prune(10_000, 1);
    assert.equal([...new Set(journal(d).map((r) => r.seq))], [last]);
    assert.is(d.daemon.app.store.ha.prunedUpTo(), last - 1);
    for (let i = 6; i < 12; i++) assert.is((await client(d).post(`/api/servers/${s.id}/peers`, { name: `p${i}` })).status, 201);
    const before = journal(d);
    const bound = before.length - 3;
    d.daemon.app.store.ha.prune(10_000, bound);
    const after = journal(d);
    assert.ok(after.length <= bound, `${after.length} rows kept, at most ${bound}`);
    const gone = new Set(before.slice(0, before.length - after.length).map((r) => r.seq));
    assert.ok(after.every((r) => !gone.has(r.seq)), 'a change is kept whole or not at all');
  } finally {
    await d.stop();
  }
});

t('a shared key file others may read stops the start', async () => {
  const refused = await paired({ WGCP_HA_KEY_FILE: keyFile(0o644) }).then(async (d) => { await d.stop(); return null; }, (err: Error) => err);
  assert.match(refused?.message ?? 'it started', /mode 644: make it 600/);
});

t.run();
