import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { client, startTestDaemon, type TestDaemon } from './helpers/daemon';

const t = suite('webhooks API');
let d: TestDaemon;
let api: ReturnType<typeof client>;
let sid: number;
t.before(async () => {
  d = await startTestDaemon();
  api = client(d);
  sid = (await api.post('/api/servers', { name: 'home', endpoint: 'vpn.example.com:51820', mode: 'standalone' })).json.id;
});
t.after(async () => { await d.stop(); });

const bytes = (s: string) => [...Buffer.from(s, 'utf8')];

t('creates a webhook with defaults and shows it on its server', async () => {
  const r = await api.post(`/api/servers/${sid}/webhooks`, { name: 'ops', url: 'https://hooks.example.com/x' });
  assert.is(r.status, 201);
  const w = r.json;
  assert.is(w.serverID, sid);
  assert.is(w.isEnabled, true);
  assert.is(w.isGlobal, false);
  assert.is(w.verifySSL, true);
  assert.equal(w.subscribedActions, []);
  assert.is(w.template, 'default');
  assert.is(w.defaultPayload, '');
  assert.equal(w.customHeaders, []);
  assert.is(w.secret, '');
  const server = (await api.get(`/api/servers/${sid}`)).json;
  assert.equal(server.webhooks.map((h: { id: number }) => h.id), [w.id]);
});

t('stores custom headers given as UTF-8 bytes or as an object, and shows bytes', async () => {
  const text = '{"X-Team":"réseau"}';
  const a = await api.post(`/api/servers/${sid}/webhooks`, { url: 'http://127.0.0.1:9/a', customHeaders: bytes(text), template: 'custom', customBody: '{"who":"{{data.peer.name}}"}', subscribedActions: [3, 1, 3] });
  assert.is(a.status, 201);
  assert.equal(a.json.customHeaders, bytes(text));
  assert.equal(a.json.subscribedActions, [1, 3]);
  const b = await api.post(`/api/servers/${sid}/webhooks`, { url: 'http://127.0.0.1:9/b', customHeaders: { 'X-Token': 'abc' } });
  assert.equal(b.json.customHeaders, bytes('{"X-Token":"abc"}'));
});

t('masks the secret and keeps it when the mask is sent back', async () => {
  const r = await api.post(`/api/servers/${sid}/webhooks`, { url: 'http://127.0.0.1:9/s', secret: 's3cret-value' });
  assert.is(r.json.secret, '********');
  assert.not.ok(r.text.includes('s3cret-value'));
  const u = await api.put(`/api/webhooks/${r.json.id}`, { secret: '********', name: 'renamed' });
  assert.is(u.json.secret, '********');
  assert.is(d.daemon.app.store.webhooks.get(r.json.id)!.secret, 's3cret-value');
});

t('refuses bad urls, actions, templates, payloads and headers, naming the field', async () => {
  const cases: [Record<string, unknown>, string][] = [
    [{}, 'url'], [{ url: 'ftp://x.example.com' }, 'url'], [{ url: 'not a url' }, 'url'],
    [{ url: 'http://a.example.com', subscribedActions: [9] }, 'subscribedActions'],
    [{ url: 'http://a.example.com', subscribedActions: [0] }, 'subscribedActions'],
    [{ url: 'http://a.example.com', subscribedActions: 'all' }, 'subscribedActions'],
    [{ url: 'http://a.example.com', template: 'teams' }, 'template'],
    [{ url: 'http://a.example.com', template: 'custom' }, 'customBody'],
    [{ url: 'http://a.example.com', defaultPayload: '[1]' }, 'defaultPayload'],
    [{ url: 'http://a.example.com', defaultPayload: '{bad' }, 'defaultPayload'],
    [{ url: 'http://a.example.com', customHeaders: [300] }, 'customHeaders'],
    [{ url: 'http://a.example.com', customHeaders: bytes('[1,2]') }, 'customHeaders'],
    [{ url: 'http://a.example.com', customHeaders: [0xff, 0xfe] }, 'customHeaders'],
    [{ url: 'http://a.example.com', customHeaders: { 'Bad Name': 'x' } }, 'customHeaders'],
    [{ url: 'http://a.example.com', customHeaders: { 'X-A': 'line\r\nInjected: 1' } }, 'customHeaders'],
    [{ url: 'http://a.example.com', customHeaders: { Host: 'evil' } }, 'customHeaders'],
    [{ url: 'http://a.example.com', isGlobal: 'true' }, 'isGlobal'],
    [{ url: 'http://a.example.com', verifySSL: null, isEnabled: 0 }, 'isEnabled'],
  ];
  for (const [body, field] of cases) {
    const r = await api.post(`/api/servers/${sid}/webhooks`, body);
    assert.is(r.status, 400, JSON.stringify(body));
    assert.is(r.json.field, field, JSON.stringify(body));
  }
});

t('reads, updates and deletes one webhook', async () => {
  const w = (await api.post(`/api/servers/${sid}/webhooks`, { url: 'http://127.0.0.1:9/rud' })).json;
  assert.is((await api.get(`/api/webhooks/${w.id}`)).json.url, 'http://127.0.0.1:9/rud');
  const u = await api.put(`/api/webhooks/${w.id}`, { isEnabled: false, template: 'slack', defaultPayload: '{"env":"lab"}' });
  assert.is(u.status, 200);
  assert.is(u.json.isEnabled, false);
  assert.is(u.json.template, 'slack');
  assert.is(u.json.defaultPayload, '{"env":"lab"}');
  assert.is(u.json.url, 'http://127.0.0.1:9/rud');
  const bad = await api.put(`/api/webhooks/${w.id}`, { template: 'custom' });
  assert.is(bad.status, 400);
  assert.is(bad.json.field, 'customBody');
  assert.is((await api.del(`/api/webhooks/${w.id}`)).status, 204);
  assert.is((await api.get(`/api/webhooks/${w.id}`)).status, 404);
  assert.is((await api.del(`/api/webhooks/${w.id}`)).status, 404);
});

t('answers 404 for webhooks of unknown servers and for bad ids', async () => {
  assert.is((await api.get('/api/servers/999/webhooks')).status, 404);
  assert.is((await api.post('/api/servers/999/webhooks', { url: 'http://a.example.com' })).status, 404);
  for (const id of ['abc', '0', '999']) {
    const r = await api.get(`/api/webhooks/${id}`);
    assert.is(r.status, 404);
    assert.is(r.json.error, 'webhook not found');
  }
});

t.run();
