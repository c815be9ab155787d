// Every route of the OpenAPI document tried with a key of each role, against a real daemon
// over HTTP. The document is the list: an operation with credentials but no x-wgcp-role,
// or a served control route that declares no role, fails here.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { call, client, startTestDaemon, type TestDaemon } from './helpers/daemon';

const t = suite('roles: every route with each role');
let d: TestDaemon;
const keys: Record<string, string> = {};
const RANK: Record<string, number> = { viewer: 0, operator: 1, admin: 2 };
const METHODS = ['get', 'put', 'post', 'delete'];

t.before(async () => {
  d = await startTestDaemon();
  const api = client(d);
  for (const role of ['viewer', 'operator', 'admin']) {
    const r = await api.post('/api/apikeys', { name: `${role}-key`, role });
    assert.is(r.status, 201);
    assert.is(r.json.role, role);
    keys[role] = r.json.key;
  }
});
t.after(async () => { await d.stop(); });

interface Operation { method: string; path: string; role: string | undefined; open: boolean }

async function operations(): Promise<Operation[]> {
  const doc = (await call(d.url, 'GET', '/api/openapi.json', undefined, { 'wg-control-key': d.key })).json;
  const ops: Operation[] = [];
  for (const [p, item] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
    for (const m of METHODS) {
      if (!item[m]) continue;
      const open = Array.isArray(item[m].security) && item[m].security.length === 0;
      ops.push({ method: m.toUpperCase(), path: p, role: item[m]['x-wgcp-role'], open });
    }
  }
  return ops;
}

// Ids nothing has: an allowed call reaches its handler and finds nothing (or a bad body),
// so no call here changes the state the next one meets.
const concrete = (p: string) => p.replace('{token}', '00000000-0000-4000-8000-000000000000')
  .replace('{id}', '999999');

t('every operation with credentials names its role, and the router serves each with that role', async () => {
  const ops = await operations();
  const missing = ops.filter((o) => !o.open && o.role === undefined).map((o) => `${o.method} ${o.path}`);
  assert.equal(missing, [], 'operations without x-wgcp-role');
  const served = d.daemon.routes.filter((r) => r.auth === 'control');
  const unset = served.filter((r) => r.role === undefined).map((r) => `${r.method} ${r.path}`);
  assert.equal(unset, [], 'control routes that declare no role');
  for (const r of served) {
    const o = ops.find((x) => x.method === r.method && x.path === r.path.replace(/:(\w+)/g, '{$1}'));
    assert.is(o?.role, r.role, `${r.method} ${r.path}`);
  }
  assert.ok(ops.filter((o) => o.role).length >= 55, 'the document lists the routes');
});

t('a key below a route\'s role gets 403 naming the role; one at or above it gets past the check', async () => {
  const ops = (await operations()).filter((o) => !o.open);
  let refused = 0;
  let passed = 0;
  for (const o of ops) {
    for (const role of ['viewer', 'operator', 'admin']) {
      // A body that is not JSON: an allowed POST or PUT stops at its parser, changing nothing.
      const body = o.method === 'POST' || o.method === 'PUT' ? 'not json' : undefined;
      const r = await call(d.url, o.method, concrete(o.path), body, { 'wg-control-key': keys[role], 'Content-Type': 'application/json' });
      const what = `${o.method} ${o.path} as ${role}: ${r.status} ${r.text.slice(0, 100)}`;
      assert.is.not(r.status, 401, what);
      if (RANK[role] < RANK[o.role!]) {
        assert.is(r.status, 403, what);
        assert.equal(r.json, { error: `forbidden: needs role ${o.role}`, code: 'WGCP_FORBIDDEN_ROLE', role: o.role }, what);
        refused++;
      } else {
        assert.ok(!(r.status === 403 && r.json?.role), what);
        passed++;
      }
    }
  }
  assert.ok(refused > 40 && passed > 100, `refused ${refused}, passed ${passed}`);
});

t('the roles are as the issue says: viewers read, operators hand out peers and devices, admins do the rest', async () => {
  const role = Object.fromEntries((await operations()).map((o) => [`${o.method} ${o.path}`, o.role]));
  for (const k of ['GET /api/servers', 'GET /api/peers/{id}', 'GET /api/devices', 'GET /api/stats', 'GET /api/peers/{id}/usage']) assert.is(role[k], 'viewer', k);
  for (const k of ['GET /api/peers/{id}/config', 'GET /api/peers/{id}/qrcode', 'GET /api/servers/{id}/tokens']) assert.is(role[k], 'operator', `${k}: no configs or tokens for viewers`);
  for (const k of ['POST /api/servers/{id}/peers', 'PUT /api/peers/{id}', 'POST /api/peers/{id}/share', 'DELETE /api/shares/{id}', 'PUT /api/devices/{id}', 'POST /api/servers/{id}/tokens']) assert.is(role[k], 'operator', k);
  for (const k of ['POST /api/servers', 'DELETE /api/servers/{id}', 'POST /api/servers/{id}/webhooks', 'POST /api/settings/smtp', 'GET /api/apikeys', 'POST /api/access-tokens', 'GET /api/backup', 'POST /api/import', 'GET /api/audit']) assert.is(role[k], 'admin', k);
});

t('an operator really makes and changes a peer, and really cannot make a server', async () => {
  const admin = client(d);
  const sid = (await admin.post('/api/servers', { name: 'office', endpoint: 'vpn.example.com:51820', mode: 'forward' })).json.id;
  const op = client({ url: d.url, key: keys.operator });
  const peer = await op.post(`/api/servers/${sid}/peers`, { name: 'phone' });
  assert.is(peer.status, 201);
  assert.is((await op.put(`/api/peers/${peer.json.id}`, { enabled: false })).json.enabled, false);
  assert.is((await op.get(`/api/peers/${peer.json.id}/config`)).status, 200);
  assert.is((await op.post('/api/servers', { name: 'x', endpoint: 'vpn.example.com:51821', mode: 'forward' })).status, 403);
  assert.is((await admin.get('/api/servers')).json.length, 1);
  const viewer = client({ url: d.url, key: keys.viewer });
  assert.is((await viewer.get(`/api/peers/${peer.json.id}`)).status, 200);
  assert.is((await viewer.get(`/api/peers/${peer.json.id}/config`)).status, 403);
  assert.is((await viewer.put(`/api/peers/${peer.json.id}`, { enabled: true })).status, 403);
  assert.is((await admin.get(`/api/peers/${peer.json.id}`)).json.enabled, false, 'the refused change left the peer as it was');
});

t('an access token made with a role has it; a role change takes effect at the next request', async () => {
  const admin = client(d);
  const made = await admin.post('/api/access-tokens', { name: 'grafana', role: 'viewer' });
  assert.is(made.status, 201);
  assert.is(made.json.role, 'viewer');
  const bearer = { authorization: `Bearer ${made.json.token}` };
  assert.is((await call(d.url, 'GET', '/api/servers', undefined, bearer)).status, 200);
  assert.is((await call(d.url, 'POST', '/api/servers/1/peers', { name: 'p2' }, bearer)).status, 403);
  const changed = await admin.put(`/api/access-tokens/${made.json.id}`, { role: 'operator' });
  assert.is(changed.status, 200);
  assert.is(changed.json.role, 'operator');
  assert.is((await call(d.url, 'POST', '/api/servers/1/peers', { name: 'p2' }, bearer)).status, 201);
  assert.is((await admin.put(`/api/access-tokens/${made.json.id}`, { role: 'root' })).status, 400);
  assert.is((await admin.put(`/api/access-tokens/${made.json.id}`, {})).json.field, 'role');
  assert.is((await admin.put('/api/access-tokens/999999', { role: 'viewer' })).status, 404);
  assert.is((await admin.post('/api/apikeys', { role: 'superuser' })).json.field, 'role');
  const audit = (await admin.get('/api/audit?action=token.role')).json.entries;
  assert.is(audit.length, 1);
  assert.equal(audit[0].summary, { name: 'grafana', from: 'viewer', to: 'operator' });
});

t('keys listed show their roles; the first key, made before roles, is admin', async () => {
  const list = (await client(d).get('/api/apikeys')).json as { name: string; role: string }[];
  assert.equal(list.map((k) => [k.name, k.role]), [['first-start', 'admin'], ['viewer-key', 'viewer'], ['operator-key', 'operator'], ['admin-key', 'admin']]);
});

t('a page session has the role of its key, followed at once when the role changes; GET /api/session says which', async () => {
  const made = (await client(d).post('/api/apikeys', { name: 'desk', role: 'viewer' })).json;
  const signedIn = await call(d.url, 'POST', '/api/session', { key: made.key }, { 'Content-Type': 'application/json' });
  const cookie = (signedIn.headers.get('set-cookie') ?? '').split(';')[0];
  const page = { Cookie: cookie, Origin: d.url, 'Content-Type': 'application/json' };
  const state = (await call(d.url, 'GET', '/api/session', undefined, page)).json;
  assert.equal([state.signedIn, state.role, state.name, state.credentialID], [true, 'viewer', 'desk', made.id]);
  const refused = await call(d.url, 'POST', '/api/servers/1/peers', { name: 'z' }, page);
  assert.equal([refused.status, refused.json.role], [403, 'operator']);
  await client(d).put(`/api/apikeys/${made.id}`, { role: 'operator' });
  assert.is((await call(d.url, 'POST', '/api/servers/1/peers', { name: 'z' }, page)).status, 201);
  assert.is((await call(d.url, 'GET', '/api/session', undefined, page)).json.role, 'operator');
});

t('wgcp apikey|token create --role and role ID ROLE, on the running daemon\'s database', async () => {
  const wgcp = (...args: string[]) => promisify(execFile)(process.execPath, [path.join(__dirname, '../src/cli/main.js'), '--data-dir', d.dataDir, ...args]);
  const key = (await wgcp('apikey', 'create', '--name', 'support', '--role', 'viewer')).stdout.trim();
  const token = (await wgcp('token', 'create', '--role', 'operator', '--expires-in-days', '7')).stdout.trim();
  assert.is((await call(d.url, 'GET', '/api/servers', undefined, { 'wg-control-key': key })).status, 200);
  assert.is((await call(d.url, 'POST', '/api/servers/1/peers', { name: 'x' }, { 'wg-control-key': key })).status, 403);
  assert.is((await call(d.url, 'POST', '/api/servers/1/peers', { name: 'y' }, { authorization: `Bearer ${token}` })).status, 201);
  const listed = JSON.parse((await wgcp('apikey', 'list', '--json')).stdout) as { id: number; name: string; role: string }[];
  const support = listed.find((k) => k.name === 'support')!;
  assert.is(support.role, 'viewer');
  assert.match((await wgcp('apikey', 'role', String(support.id), 'operator')).stdout, /now operator/);
  assert.is((await call(d.url, 'POST', '/api/servers/1/peers', { name: 'x' }, { 'wg-control-key': key })).status, 201);
  const bad = await wgcp('apikey', 'create', '--role', 'root').catch((e) => e);
  assert.is(bad.code, 2);
  assert.match(bad.stderr, /admin, operator or viewer/);
  const [row] = (await client(d).get(`/api/audit?target=apikey:${support.id}`)).json.entries;
  assert.equal([row.actor.kind, row.summary.to], ['cli', 'operator']);
});

t.run();
