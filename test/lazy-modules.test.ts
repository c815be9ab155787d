// wgcp's own code a router may never need (the import readers and planner, the backup
// writer, the OpenAPI document, node:https, single sign-on's client) is loaded at its first use, not at start: each
// is checked absent after a start and present after its first request (docs/performance.md).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { call, client, startTestDaemon, type TestDaemon } from './helpers/daemon';

const t = suite('wgcp modules loaded at their first use');
let d: TestDaemon;
let api: ReturnType<typeof client>;
const loaded = (fragment: string) => Object.keys(require.cache).some((file) => file.includes(fragment));
const LAZY = ['/dist/src/import/source.js', '/dist/src/ops/import.js', '/dist/src/backup/create.js', '/dist/src/api/openapi-doc.js', '/dist/src/api/openapi-routes.js'];

t.before(async () => {
  d = await startTestDaemon();
  api = client(d);
});
t.after(async () => { await d.stop(); });

t('a started daemon serving servers and peers has loaded none of them', async () => {
  const sid = (await api.post('/api/servers', { name: 's', endpoint: 'vpn.example.com:51820', mode: 'forward' })).json.id;
  assert.is((await api.post(`/api/servers/${sid}/peers`, { name: 'phone' })).status, 201);
  for (const m of LAZY) assert.is(loaded(m), false, `${m} is not loaded`);
  // Single sign-on's client (and the ESM openid-client it imports) waits for the first sign-in by it.
  assert.is(loaded('/dist/src/http/oidc-client.js'), false, 'the OIDC client is not loaded');
  assert.ok(loaded('/dist/src/api/import.js') && loaded('/dist/src/api/backup.js'), 'their routes are');
});

t('the first import, backup and OpenAPI request load each', async () => {
  const dry = await api.post('/api/import', { source: 'wg-quick', file: '[Interface]\n', dryRun: true });
  assert.is(dry.status, 400, 'an import that is refused still needed the readers');
  assert.ok(loaded('/dist/src/import/source.js') && loaded('/dist/src/ops/import.js'));
  assert.is(loaded('/dist/src/backup/create.js'), false);
  assert.is((await call(d.url, 'GET', '/api/backup', undefined, { 'wg-control-key': d.key })).status, 200);
  assert.ok(loaded('/dist/src/backup/create.js'));
  assert.is(loaded('/dist/src/api/openapi-doc.js'), false);
  assert.is((await api.get('/api/openapi.json')).json.openapi.startsWith('3.'), true);
  assert.ok(loaded('/dist/src/api/openapi-doc.js'));
});

t.run();
