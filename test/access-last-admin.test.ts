// The router always keeps an admin: the last live admin key or token can be neither
// demoted nor revoked, from the API, a page session or the CLI. Real keys, sessions and
// the real `wgcp` command against a real daemon.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { call, client, startTestDaemon, type TestDaemon } from './helpers/daemon';

const t = suite('access: the last admin stays an admin');
let d: TestDaemon;
// The daemon's clock, moved forward past a token's expiry instead of waiting for it.
let offsetMs = 0;
const now = () => new Date(Date.now() + offsetMs);
const wgcp = (...args: string[]) => promisify(execFile)(process.execPath, [path.join(__dirname, '../src/cli/main.js'), '--data-dir', d.dataDir, ...args]);
const FIRST = 1; // the first-start key, the only admin at first

t.before(async () => { d = await startTestDaemon({ options: { now } }); });
t.after(async () => { await d.stop(); });

const roleOf = async (id: number) => ((await client(d).get('/api/apikeys')).json as { id: number; role: string }[]).find((k) => k.id === id)?.role;

t('the only admin key cannot demote itself: 409 saying why, and it stays admin', async () => {
  for (const role of ['operator', 'viewer']) {
    const r = await client(d).put(`/api/apikeys/${FIRST}`, { role });
    assert.is(r.status, 409, r.text);
    assert.is(r.json.error, 'changing the role of the last admin key or token would leave no admin: make another admin first');
  }
  assert.is(await roleOf(FIRST), 'admin');
  assert.is((await client(d).get('/api/audit?action=apikey.role')).json.entries.length, 0, 'a refused change writes no row');
});

t('the only admin key cannot be revoked', async () => {
  const r = await client(d).del(`/api/apikeys/${FIRST}`);
  assert.is(r.status, 409);
  assert.match(r.json.error, /^revoking the last admin key or token would leave no admin/);
  assert.is((await client(d).get('/api/servers')).status, 200, 'the key still works');
});

t('from the page: a session of the only admin cannot demote its key', async () => {
  const signedIn = await call(d.url, 'POST', '/api/session', { key: d.key }, { 'Content-Type': 'application/json' });
  const page = { Cookie: (signedIn.headers.get('set-cookie') ?? '').split(';')[0], Origin: d.url, 'Content-Type': 'application/json' };
  const r = await call(d.url, 'PUT', `/api/apikeys/${FIRST}`, { role: 'viewer' }, page);
  assert.is(r.status, 409);
  assert.is(await roleOf(FIRST), 'admin');
});

t('an expired admin token does not count as an admin', async () => {
  const token = await client(d).post('/api/access-tokens', { name: 'short', role: 'admin', expiresInDays: 1 });
  assert.is(token.status, 201);
  offsetMs += 2 * 86_400_000;
  assert.is((await client(d).put(`/api/apikeys/${FIRST}`, { role: 'viewer' })).status, 409);
  // Gone for good: the wgcp command below reads the real clock, to which it is still live.
  assert.is((await client(d).del(`/api/access-tokens/${token.json.id}`)).status, 204);
});

t('with a second admin, one may be demoted; then the other is the last', async () => {
  const second = (await client(d).post('/api/apikeys', { name: 'second admin', role: 'admin' })).json;
  const demoted = await client(d).put(`/api/apikeys/${FIRST}`, { role: 'operator' });
  assert.is(demoted.status, 200, demoted.text);
  const other = client({ url: d.url, key: second.key });
  assert.is((await other.put(`/api/apikeys/${second.id}`, { role: 'viewer' })).status, 409);
  assert.is((await other.del(`/api/apikeys/${second.id}`)).status, 409);
  assert.is((await other.put(`/api/apikeys/${FIRST}`, { role: 'admin' })).status, 200);
});

const admins = async () => ((await wgcp('apikey', 'list', '--json').then((r) => JSON.parse(r.stdout))) as { id: number; role: string }[]).filter((k) => k.role === 'admin');

t('two admins demoted at once, one through the API and one by the wgcp command on the file: an admin remains', async () => {
  const [a, b] = await admins();
  const viaCli = wgcp('apikey', 'role', String(b.id), 'viewer').then(() => 'ok', () => 'refused');
  const viaApi = client(d).put(`/api/apikeys/${a.id}`, { role: 'viewer' }).then((r) => (r.status === 200 ? 'ok' : 'refused'));
  const outcomes = await Promise.all([viaCli, viaApi]);
  assert.ok(outcomes.includes('ok') && outcomes.includes('refused'), outcomes.join());
  assert.is((await admins()).length, 1);
});

t('the wgcp command is refused too; wgcp apikey create makes another admin, the way back', async () => {
  const [admin] = await admins();
  const demote = await wgcp('apikey', 'role', String(admin.id), 'viewer').catch((e) => e);
  assert.is(demote.code, 1);
  assert.match(demote.stderr, /would leave no admin/);
  const revoke = await wgcp('apikey', 'revoke', String(admin.id)).catch((e) => e);
  assert.is(revoke.code, 1);
  assert.match(revoke.stderr, /would leave no admin/);
  await wgcp('apikey', 'create', '--name', 'rescue');
  assert.match((await wgcp('apikey', 'role', String(admin.id), 'viewer')).stdout, /now viewer/);
});

t.run();
