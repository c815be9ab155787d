import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { call, client, startTestDaemon, type TestDaemon } from './helpers/daemon';
import { createLogger } from '../src/log';

const t = suite('API keys and access tokens through the API');

let d: TestDaemon;
let api: ReturnType<typeof client>;
const logLines: string[] = [];
t.before(async () => {
  d = await startTestDaemon({ options: { log: createLogger('debug', (l) => { logLines.push(l); }) } });
  api = client(d);
});
t.after(async () => { await d.stop(); });

t('a new API key is shown once, works as wg-control-key, and a list never holds it', async () => {
  const made = await api.post('/api/apikeys', { name: 'laptop' });
  assert.is(made.status, 201, made.text);
  assert.match(made.json.key, /^wgk_/);
  assert.is(made.json.name, 'laptop');
  const works = await call(d.url, 'GET', '/api/stats', undefined, { 'wg-control-key': made.json.key });
  assert.is(works.status, 200);
  const list = await api.get('/api/apikeys');
  assert.ok(list.json.some((c: { id: number }) => c.id === made.json.id));
  assert.not.ok(list.text.includes(made.json.key));
  assert.not.ok(logLines.join('\n').includes(made.json.key), 'never in the log');
});

t('an answer holds the credential\'s fields and never its hash; the secret only in the 201', async () => {
  const fields = ['createdAt', 'expiresAt', 'id', 'kind', 'lastUsedAt', 'name', 'role'];
  const made = await api.post('/api/access-tokens', { name: 'fields', role: 'viewer', expiresInDays: 2 });
  assert.equal(Object.keys(made.json).sort(), [...fields, 'token'].sort());
  const listed = (await api.get('/api/access-tokens')).json.find((c: { id: number }) => c.id === made.json.id);
  assert.equal(Object.keys(listed).sort(), fields);
  const changed = await api.put(`/api/access-tokens/${made.json.id}`, { role: 'operator' });
  assert.equal(Object.keys(changed.json).sort(), fields);
  assert.is(changed.json.role, 'operator');
});

t('a revoked API key stops working at once', async () => {
  const made = (await api.post('/api/apikeys', {})).json;
  assert.is((await api.del(`/api/apikeys/${made.id}`)).status, 204);
  assert.is((await call(d.url, 'GET', '/api/stats', undefined, { 'wg-control-key': made.key })).status, 401);
  assert.is((await api.del(`/api/apikeys/${made.id}`)).status, 404);
});

t('an access token works as a bearer, may expire, and is revoked the same way', async () => {
  const made = await api.post('/api/access-tokens', { name: 'prometheus', expiresInDays: 30 });
  assert.is(made.status, 201, made.text);
  assert.match(made.json.token, /^wgt_/);
  assert.ok(Date.parse(made.json.expiresAt) > Date.now() + 29 * 86_400_000);
  assert.is((await call(d.url, 'GET', '/api/stats', undefined, { Authorization: `Bearer ${made.json.token}` })).status, 200);
  assert.is((await call(d.url, 'GET', '/api/stats', undefined, { 'wg-control-key': made.json.token })).status, 401, 'the kinds stay apart');
  assert.is((await api.del(`/api/access-tokens/${made.json.id}`)).status, 204);
  assert.is((await call(d.url, 'GET', '/api/stats', undefined, { Authorization: `Bearer ${made.json.token}` })).status, 401);
});

t('bad input is a 400 naming the field; an unknown id is a 404', async () => {
  for (const [path, body, field] of [
    ['/api/access-tokens', { expiresInDays: 0 }, 'expiresInDays'],
    ['/api/access-tokens', { expiresInDays: '7' }, 'expiresInDays'],
    ['/api/apikeys', { expiresInDays: 7 }, 'expiresInDays'],
    ['/api/apikeys', { name: '' }, 'name'],
  ] as const) {
    const r = await api.post(path, body);
    assert.is(r.status, 400, `${path} ${JSON.stringify(body)}: ${r.text}`);
    assert.is(r.json.field, field);
  }
  const both = await api.post('/api/access-tokens', { name: '', role: 'owner', expiresInDays: 0 });
  assert.equal([both.json['errors.name'], both.json['errors.role'], both.json['errors.expiresInDays']].map(Boolean), [true, true, true], `every bad field at once: ${both.text}`);
  assert.is((await api.del('/api/access-tokens/999999')).status, 404);
  assert.is((await api.del('/api/apikeys/abc')).status, 404);
});

t.run();
