// Refusals a first hour meets, against a real daemon over HTTP: names that would show as blank
// rows or invisible, reordered links; an expiry already past (which would delete the peer at
// the next minute); an empty backup passphrase. Each is a 400 naming the field, nothing stored.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { generateKeyPair } from '../src/wg/keys';
import { call, client, startTestDaemon, type TestDaemon } from './helpers/daemon';
import { wgQuickServer } from './import-support';

const t = suite('API refusals: blank and control-character names, past expiry dates, an empty backup passphrase');
// The daemon's clock, fixed: "past" is judged by it, not by the test machine's.
const NOW = new Date('2027-03-01T12:00:00.000Z');
let d: TestDaemon;
let api: ReturnType<typeof client>;
let serverId: number;
let peerId: number;
let webhookId: number;

t.before(async () => {
  d = await startTestDaemon({ options: { now: () => NOW, events: { schedule: false } } });
  api = client(d);
  serverId = (await api.post('/api/servers', { name: 'home', endpoint: 'vpn.example.com:51820', mode: 'standalone', address: '10.60.0.1/24' })).json.id;
  peerId = (await api.post(`/api/servers/${serverId}/peers`, { name: 'laptop' })).json.id;
  webhookId = (await api.post(`/api/servers/${serverId}/webhooks`, { name: 'ops', url: 'http://127.0.0.1:9/hook' })).json.id;
});
t.after(async () => { await d.stop(); });

// Blank, C0 (NUL, newline, tab), DEL, C1 (NEL), bidi override, embedding and isolates; the
// invisible ones that look like nothing or like another name: zero-width space, RLM, Arabic
// letter mark, line and paragraph separators, BOM, the Hangul fillers, no-break and
// ideographic spaces, soft hyphen, a variation selector, private use, unassigned, a lone surrogate.
const BAD_NAMES = [
  '   ', ' ', '\u3000', 'a\u0000b', 'line\nbreak', 'tab\there', 'del\u007f', 'nel\u0085', 'abc\u202Egpj.exe', 'x\u202Ay', 'x\u2066y', 'x\u2069y',
  'ad\u200Bmin', 'a\u200Fb', 'a\u061Cb', 'a\u2028b', 'a\u2029b', '\uFEFFadmin', '\u3164', 'a\u115Fb', 'a\u1160b', '\uFFA0', 'ad\u00A0min', 'x\u3000y',
  'ad\u00ADmin', 'a\uFE0Fb', 'a\uE000b', 'a\u0378b', 'a\uD800b',
];

/** Every request that takes a name, with the field it is in; `name` goes in that field. */
const NAMED: { what: string; field: string; send: (name: string) => ReturnType<typeof api.post> }[] = [
  { what: 'POST /api/servers', field: 'name', send: (name) => api.post('/api/servers', { name, endpoint: 'vpn.example.com:51821', mode: 'standalone', address: '10.61.0.1/24' }) },
  { what: 'PUT /api/servers/:id', field: 'name', send: (name) => api.put(`/api/servers/${serverId}`, { name }) },
  { what: 'POST peers', field: 'name', send: (name) => api.post(`/api/servers/${serverId}/peers`, { name }) },
  { what: 'PUT /api/peers/:id', field: 'name', send: (name) => api.put(`/api/peers/${peerId}`, { name }) },
  { what: 'POST webhooks', field: 'name', send: (name) => api.post(`/api/servers/${serverId}/webhooks`, { name, url: 'http://127.0.0.1:9/x' }) },
  { what: 'PUT /api/webhooks/:id', field: 'name', send: (name) => api.put(`/api/webhooks/${webhookId}`, { name }) },
  { what: 'POST /api/apikeys', field: 'name', send: (name) => api.post('/api/apikeys', { name }) },
  { what: 'POST /api/access-tokens', field: 'name', send: (name) => api.post('/api/access-tokens', { name }) },
  { what: 'POST /api/settings/smtp', field: 'fromName', send: (fromName) => api.post('/api/settings/smtp', { enabled: false, server: 'smtp.example.com', port: 587, useAuth: false, fromEmail: 'wgcp@example.com', fromName }) },
  { what: 'POST /api/import', field: 'name', send: (name) => api.post('/api/import', { source: 'wg-quick', file: wgQuickServer({ privateKey: generateKeyPair().privateKey, address: '10.62.0.1/24', listenPort: 47201, peers: [] }), name, endpoint: 'vpn.example.com:47201', dryRun: true }) },
];

/** What the daemon holds that a name could have changed. */
const state = async () => JSON.stringify(await Promise.all(['/api/servers', `/api/peers/${peerId}`, `/api/webhooks/${webhookId}`, '/api/apikeys', '/api/access-tokens', '/api/settings/smtp'].map(async (p) => (await api.get(p)).json)));

t('every name field refuses a blank name and control, format, separator and invisible characters by category: 400 naming the field, nothing stored', async () => {
  const before = await state();
  for (const n of NAMED) {
    for (const name of BAD_NAMES) {
      const r = await n.send(name);
      const label = `${n.what} ${JSON.stringify(name)}`;
      assert.is(r.status, 400, `${label}: ${r.text}`);
      assert.is(r.json.field, n.field, label);
      assert.match(r.json.error, new RegExp(`^${n.field} must not (be blank|hold control, format, separator or invisible characters)`), label);
    }
  }
  assert.is(await state(), before);
});

t('the refusal says which character it found', async () => {
  const r = await api.post(`/api/servers/${serverId}/peers`, { name: 'abc\u202Egpj.exe' });
  assert.is(r.json.error, 'name must not hold control, format, separator or invisible characters (it holds U+202E); ordinary spaces are fine');
  assert.is((await api.put(`/api/peers/${peerId}`, { name: 'a\u0000' })).json.error, 'name must not hold control, format, separator or invisible characters (it holds U+0000); ordinary spaces are fine');
});

t('names in any script, with inner spaces, emoji or marks are taken as given', async () => {
  for (const n of NAMED) {
    const name = n.what === 'POST /api/import' ? 'Zoë  büro' : 'Zoë’s 📱 ноутбук مرحبا';
    const r = await n.send(name);
    assert.ok(r.status === 200 || r.status === 201, `${n.what}: ${r.text}`);
    const shown = n.what === 'POST /api/import' ? r.json.plan.server.name : n.what === 'POST /api/settings/smtp' ? r.json.fromName : r.json.name;
    assert.is(shown, name, n.what);
  }
});

t('an empty peer name is still taken: the rule refuses names of spaces, not the empty one', async () => {
  const r = await api.post(`/api/servers/${serverId}/peers`, { name: '' });
  assert.is(r.status, 201, r.text);
  assert.is(r.json.name, '');
});

t('import: names from the file lose control and text-direction characters, a blank one gets the address, and the plan says so', async () => {
  const [a, b, c] = [generateKeyPair(), generateKeyPair(), generateKeyPair()];
  const file = wgQuickServer({
    privateKey: generateKeyPair().privateKey, address: '10.63.0.1/24', listenPort: 47202,
    peers: [
      { comment: 'Name = invoice\u202Efdp.exe', publicKey: a.publicKey, allowedIps: '10.63.0.2/32' },
      { comment: 'Name = \u2066\u2069', publicKey: b.publicKey, allowedIps: '10.63.0.3/32' },
      { comment: 'Name = plain', publicKey: c.publicKey, allowedIps: '10.63.0.4/32' },
    ],
  });
  const r = await api.post('/api/import', { source: 'wg-quick', file, endpoint: 'vpn.example.com:47202', dryRun: true });
  assert.is(r.status, 200, r.text);
  assert.equal(r.json.plan.peers.map((p: { name: string }) => p.name), ['invoicefdp.exe', 'peer 10.63.0.3', 'plain']);
  const notes = (r.json.plan.notes as string[]).join('\n');
  assert.match(notes, /the name of peer 10\.63\.0\.2 must not hold control, format, separator or invisible characters \(it holds U\+202E\); ordinary spaces are fine: it comes in as "invoicefdp\.exe"/);
  assert.match(notes, /the name of peer 10\.63\.0\.3 must not hold .*: it comes in as "peer 10\.63\.0\.3"/);
});

t('a past expiresAt is refused on create and on update, judged by the daemon clock; the peer stays as it was', async () => {
  const count = async () => (await api.get(`/api/servers/${serverId}/peers`)).json.length;
  const peersBefore = await count();
  for (const past of ['2027-03-01T11:59:59Z', '2027-03-01T12:00:00Z', '2020-01-01T00:00:00Z', '2027-03-01T13:00:00+02:00']) {
    const made = await api.post(`/api/servers/${serverId}/peers`, { name: 'guest', expiresAt: past });
    assert.is(made.status, 400, `${past}: ${made.text}`);
    assert.is(made.json.field, 'expiresAt');
    assert.is(made.json.error, 'expiresAt must be in the future (it is 2027-03-01T12:00:00.000Z now); null or "" for never');
    const before = (await api.get(`/api/peers/${peerId}`)).json;
    const changed = await api.put(`/api/peers/${peerId}`, { name: 'renamed', expiresAt: past });
    assert.is(changed.status, 400, `${past}: ${changed.text}`);
    assert.is(changed.json.field, 'expiresAt');
    assert.equal((await api.get(`/api/peers/${peerId}`)).json, before);
  }
  assert.is(await count(), peersBefore);
});

t('a future expiresAt is kept, and null or "" still mean never', async () => {
  const soon = await api.put(`/api/peers/${peerId}`, { expiresAt: '2027-03-01T12:00:01Z' });
  assert.is(soon.status, 200, soon.text);
  assert.is(soon.json.expiresAt, '2027-03-01T12:00:01.000Z');
  assert.is((await api.put(`/api/peers/${peerId}`, { expiresAt: null })).json.expiresAt, null);
  await api.put(`/api/peers/${peerId}`, { expiresAt: '2028-01-01T00:00:00Z' });
  assert.is((await api.put(`/api/peers/${peerId}`, { expiresAt: '' })).json.expiresAt, null);
  const made = await api.post(`/api/servers/${serverId}/peers`, { name: 'visitor', expiresAt: '2027-03-02T00:00:00Z' });
  assert.is(made.status, 201, made.text);
});

t('GET /api/backup refuses an empty or blank passphrase header with 400, and gives no file', async () => {
  for (const value of ['', '   ']) {
    const r = await call(d.url, 'GET', '/api/backup', undefined, { 'wg-control-key': d.key, 'wgcp-backup-passphrase': value });
    assert.is(r.status, 400, JSON.stringify(value));
    assert.is(r.json.field, 'wgcp-backup-passphrase');
    assert.not.ok(r.headers.get('content-disposition'));
  }
  const plain = await call(d.url, 'GET', '/api/backup', undefined, { 'wg-control-key': d.key });
  assert.is(plain.status, 200);
});

t.run();
