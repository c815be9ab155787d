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
    [{ url: 'http://a.example.com', subscribedActions: [10] }, 'subscribedActions'],
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

t('refuses a url to a link-local, metadata or unspecified address in any spelling, on create and update, naming url', async () => {
  const refused = [
    'http://169.254.169.254/latest/meta-data/', 'http://[::ffff:169.254.169.254]/', 'http://[::ffff:a9fe:a9fe]/',
    'http://2852039166/', 'http://0xa9.254.169.254/', 'https://169.254.1.1:8443/x', 'http://[fe80::1]/', 'http://[febf::1]/',
    'http://0.0.0.0:9/', 'http://0/', 'http://[::]/', 'http://[fd00:ec2::254]/', 'http://100.100.100.200/',
  ];
  const w = (await api.post(`/api/servers/${sid}/webhooks`, { url: 'http://127.0.0.1:9/guard' })).json;
  for (const url of refused) {
    for (const r of [await api.post(`/api/servers/${sid}/webhooks`, { url }), await api.put(`/api/webhooks/${w.id}`, { url })]) {
      assert.is(r.status, 400, `${url}: ${r.text}`);
      assert.is(r.json.field, 'url', url);
      assert.match(r.json.error, /^url must not point to /, url);
    }
  }
  assert.is((await api.get(`/api/webhooks/${w.id}`)).json.url, 'http://127.0.0.1:9/guard', 'the refused updates changed nothing');
});

t("refuses a url to wgcpd's own listener, by address or as localhost", async () => {
  for (const url of [`http://127.0.0.1:${d.daemon.port}/api/peers`, `http://localhost:${d.daemon.port}/`, `http://LOCALHOST.:${d.daemon.port}/`]) {
    const r = await api.post(`/api/servers/${sid}/webhooks`, { url });
    assert.is(r.status, 400, `${url}: ${r.text}`);
    const error = `url must not point to wgcpd's own listener (127.0.0.1:${d.daemon.port})`;
    assert.equal(r.json, { error, code: 'WGCP_FIELD_INVALID', field: 'url', 'errors.url': error }, url);
  }
});

t('names every bad field of a body at once (the description reads each field by its rule)', async () => {
  const r = await api.post(`/api/servers/${sid}/webhooks`, { url: 'ftp://example.com/', template: 'teams', subscribedActions: [0], isGlobal: 'yes' });
  assert.is(r.status, 400);
  assert.is(r.json.code, 'WGCP_FIELD_INVALID');
  assert.equal(Object.keys(r.json).filter((k) => k.startsWith('errors.')).sort(), ['errors.isGlobal', 'errors.subscribedActions', 'errors.template', 'errors.url']);
  assert.is(r.json['errors.url'], 'url must be an http:// or https:// URL');
});

t('keeps loopback on other ports and the private ranges: a receiver on the router or the LAN is a normal use', async () => {
  for (const url of ['http://127.0.0.1:9/x', 'http://localhost:9/x', 'http://[::1]:9/x', 'http://192.168.1.20/hook', 'http://10.0.0.7:8080/',
    'http://172.16.5.5/', 'http://[fd12:3456::1]/', 'https://hooks.example.com/x', 'http://169.255.0.1/']) {
    const r = await api.post(`/api/servers/${sid}/webhooks`, { url });
    assert.is(r.status, 201, `${url}: ${r.text}`);
  }
});

t('refuses header names and values Node cannot send, at input rather than at delivery', async () => {
  const cases: [Record<string, string>, RegExp][] = [
    [{ 'X-Price': '10 €' }, /value of "X-Price"/], [{ 'X-Name': '日本' }, /value of "X-Name"/],
    [{ 'X-Bell': 'a\u0007b' }, /value of "X-Bell"/], [{ 'X-Del': 'a\u007fb' }, /value of "X-Del"/],
    [{ 'X-Ok': 'fine', 'Bad:Name': 'x' }, /header name "Bad:Name"/],
  ];
  for (const [headers, message] of cases) {
    for (const customHeaders of [headers, bytes(JSON.stringify(headers))]) {
      const r = await api.post(`/api/servers/${sid}/webhooks`, { url: 'http://127.0.0.1:9/h', customHeaders });
      assert.is(r.status, 400, JSON.stringify(headers));
      assert.is(r.json.field, 'customHeaders');
      assert.match(r.json.error, message);
    }
  }
  const latin1 = await api.post(`/api/servers/${sid}/webhooks`, { url: 'http://127.0.0.1:9/h', customHeaders: { 'X-Team': 'réseau\tdeux' } });
  assert.is(latin1.status, 201, 'Latin-1 and a tab are what Node sends as they are');
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
    assert.equal([r.json.code, r.json.error], ['WGCP_WEBHOOK_NOT_FOUND', 'webhook not found']);
  }
});

t.run();
