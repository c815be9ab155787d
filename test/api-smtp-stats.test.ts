import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { client, startTestDaemon, type TestDaemon } from './helpers/daemon';

const t = suite('SMTP settings and statistics');
let d: TestDaemon;
let api: ReturnType<typeof client>;
t.before(async () => { d = await startTestDaemon(); api = client(d); });
t.after(async () => { await d.stop(); });

t('shows default SMTP settings before any are saved', async () => {
  const r = await api.get('/api/settings/smtp');
  assert.is(r.status, 200);
  assert.equal(Object.keys(r.json).sort(), ['enabled', 'fromEmail', 'fromName', 'id', 'password', 'port', 'server', 'useAuth', 'useTLS', 'username']);
  assert.is(r.json.enabled, false);
  assert.is(r.json.password, '');
});

t('saves settings, masks the password and keeps it when the mask comes back', async () => {
  const body = { enabled: true, server: 'smtp.example.com', port: 465, useAuth: true, useTLS: true, username: 'bot', password: 'hunter2-long', fromEmail: 'vpn@example.com', fromName: 'Router' };
  const r = await api.post('/api/settings/smtp', body);
  assert.is(r.status, 200);
  assert.is(r.json.password, '********');
  assert.not.ok(r.text.includes('hunter2'));
  assert.is((await api.get('/api/settings/smtp')).json.password, '********');
  const again = await api.post('/api/settings/smtp', { ...body, password: '********', port: 587 });
  assert.is(again.json.port, 587);
  assert.is(d.daemon.app.store.smtp.get().password, 'hunter2-long');
});

t('refuses bad SMTP settings, naming the field', async () => {
  const cases: [Record<string, unknown>, string][] = [
    [{ port: 0 }, 'port'], [{ port: 70000 }, 'port'], [{ port: '25' }, 'port'], [{ enabled: 'on' }, 'enabled'],
    [{ fromEmail: 'not-mail' }, 'fromEmail'], [{ server: 'bad host!' }, 'server'], [{ fromName: 'a\nBcc: x@y' }, 'fromName'],
    [{ enabled: true, server: '' }, 'server'],
  ];
  for (const [body, field] of cases) {
    const r = await api.post('/api/settings/smtp', body);
    assert.is(r.status, 400, JSON.stringify(body));
    assert.is(r.json.field, field, JSON.stringify(body));
  }
  assert.is(d.daemon.app.store.smtp.get().server, 'smtp.example.com');
});

t("refuses an SMTP server at a link-local, metadata or unspecified address, or at wgcpd's own listener, naming server", async () => {
  const before = d.daemon.app.store.smtp.get();
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ server: '169.254.169.254' }, /link-local/], [{ server: '2852039166' }, /link-local/], [{ server: 'fe80::1' }, /link-local/],
    [{ server: '::ffff:169.254.169.254' }, /link-local/], [{ server: '0.0.0.0' }, /unspecified/], [{ server: '::' }, /unspecified/],
    [{ server: '127.0.0.1', port: d.daemon.port }, /wgcpd's own listener/], [{ server: 'localhost', port: d.daemon.port }, /wgcpd's own listener/],
  ];
  for (const [body, message] of cases) {
    const r = await api.post('/api/settings/smtp', body);
    assert.is(r.status, 400, `${JSON.stringify(body)}: ${r.text}`);
    assert.is(r.json.field, 'server', JSON.stringify(body));
    assert.match(r.json.error, /^server must not point to /);
    assert.match(r.json.error, message);
  }
  assert.equal(d.daemon.app.store.smtp.get(), before, 'nothing was saved');
  await api.post('/api/settings/smtp', { server: 'localhost', port: 25 });
  const onlyPort = await api.post('/api/settings/smtp', { port: d.daemon.port });
  assert.is(onlyPort.status, 400, 'a port change alone is checked with the stored server');
  assert.is(onlyPort.json.field, 'server');
});

t('keeps an SMTP server on loopback or in a private range', async () => {
  for (const server of ['127.0.0.1', 'localhost', '::1', '192.168.1.2', '10.1.2.3', 'fd00::25', 'smtp.example.com']) {
    const r = await api.post('/api/settings/smtp', { server, port: 25 });
    assert.is(r.status, 200, `${server}: ${r.text}`);
  }
});

t('counts servers, peers, webhooks and usage globally and per server', async () => {
  const a = (await api.post('/api/servers', { name: 'a', endpoint: 'a.example.com:51820', mode: 'forward' })).json.id;
  const b = (await api.post('/api/servers', { name: 'b', endpoint: 'b.example.com:51821', mode: 'standalone' })).json.id;
  const p1 = (await api.post(`/api/servers/${a}/peers`, {})).json.id;
  await api.post(`/api/servers/${a}/peers`, { enabled: false });
  await api.post(`/api/servers/${b}/peers`, {});
  await api.post(`/api/servers/${a}/webhooks`, { url: 'http://127.0.0.1:9/x' });
  d.daemon.app.store.db.prepare('INSERT INTO peer_usage (peer_id, usage_bytes) VALUES (?, 1000) ON CONFLICT (peer_id) DO UPDATE SET usage_bytes = excluded.usage_bytes').run(p1);
  const g = (await api.get('/api/stats')).json;
  assert.equal(g, { totalServers: 2, totalPeers: 3, totalWebhooks: 1, enabledPeers: 2, disabledPeers: 1, totalDataUsageBytes: 1000, totalDevices: g.totalDevices });
  assert.is(typeof g.totalDevices, 'number');
  const s = await api.get(`/api/servers/${a}/stats`);
  assert.is(s.status, 200);
  assert.equal(s.json, { serverID: a, peerCount: 2, webhookCount: 1, enabledPeers: 1, disabledPeers: 1, onlinePeers: 0, dataUsageBytes: 1000 });
  assert.is((await api.get('/api/servers/999/stats')).status, 404);
});

t.run();
