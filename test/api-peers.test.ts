import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { client, startTestDaemon, type TestDaemon } from './helpers/daemon';
import { generateKeyPair } from '../src/wg/keys';

const t = suite('peers API');
let d: TestDaemon;
let api: ReturnType<typeof client>;
let sid: number;
t.before(async () => {
  d = await startTestDaemon();
  api = client(d);
  sid = (await api.post('/api/servers', { name: 'home', endpoint: 'vpn.example.com:51820', mode: 'forward', address: '10.50.0.1/29' })).json.id;
});
t.after(async () => { await d.stop(); });

t('creates a peer with the next free address, keys and defaults', async () => {
  const r = await api.post(`/api/servers/${sid}/peers`, { name: 'phone', email: 'me@example.com' });
  assert.is(r.status, 201);
  const p = r.json;
  assert.is(p.serverID, sid);
  assert.is(p.ip, '10.50.0.2');
  assert.match(p.publicKey, /^[A-Za-z0-9+/]{43}=$/);
  assert.equal(p.allowAccess, []);
  assert.is(p.allowInternet, false);
  assert.is(p.enabled, true);
  assert.is(p.disabledReason, '');
  assert.is(p.dataLimitGB, 0);
  assert.is(p.currentDataUsageBytes, 0);
  assert.is(p.expiresAt, null);
  assert.is(p.hasPrivateKey, true);
  assert.not.ok('privateKey' in p);
  assert.not.ok(r.text.includes('resharedKey'));
});

t('ignores assigned fields and takes a requested address with or without /32', async () => {
  const r = await api.post(`/api/servers/${sid}/peers`, { ip: '10.50.0.5/32', id: 77, serverID: 99, currentDataUsageBytes: 5 });
  assert.is(r.status, 201);
  assert.is(r.json.ip, '10.50.0.5');
  assert.is.not(r.json.id, 77);
  assert.is(r.json.serverID, sid);
  assert.is(r.json.currentDataUsageBytes, 0);
});

t('refuses an address outside the subnet, the server own, or taken', async () => {
  for (const [ip, why] of [['10.51.0.2', 'not a host'], ['10.50.0.0', 'not a host'], ['10.50.0.7', 'not a host'], ['10.50.0.1', "server's own"], ['10.50.0.5', 'already taken'], ['10.50.0', 'IPv4'], [5, 'string']] as const) {
    const r = await api.post(`/api/servers/${sid}/peers`, { ip });
    assert.is(r.status, 400, String(ip));
    assert.is(r.json.field, 'ip');
    assert.ok(r.json.error.includes(why), r.json.error);
  }
});

t('fills the subnet and then says it is full', async () => {
  const made = [];
  for (;;) {
    const r = await api.post(`/api/servers/${sid}/peers`, {});
    if (r.status !== 201) {
      assert.is(r.status, 400);
      assert.ok(r.json.error.includes('no free address'));
      break;
    }
    made.push(r.json.ip);
  }
  assert.equal(made, ['10.50.0.3', '10.50.0.4', '10.50.0.6']);
});

t('takes a client public key, keeps no private key and refuses its config', async () => {
  const s2 = (await api.post('/api/servers', { name: 'b', endpoint: 'b.example.com:51821', mode: 'standalone' })).json.id;
  const { publicKey } = generateKeyPair();
  const r = await api.post(`/api/servers/${s2}/peers`, { publicKey });
  assert.is(r.status, 201);
  assert.is(r.json.publicKey, publicKey);
  assert.is(r.json.hasPrivateKey, false);
  for (const path of ['config', 'qrcode']) {
    const f = await api.get(`/api/peers/${r.json.id}/${path}`);
    assert.is(f.status, 404);
    assert.is(f.json.code, 'WGCP_PEER_NO_PRIVATE_KEY');
  }
  const dup = await api.post(`/api/servers/${s2}/peers`, { publicKey });
  assert.is(dup.status, 400);
  assert.is(dup.json.field, 'publicKey');
  const bad = await api.post(`/api/servers/${s2}/peers`, { publicKey: 'abc' });
  assert.is(bad.status, 400);
  assert.is(bad.json.field, 'publicKey');
});

t('checks allowAccess ids: same server, not itself, integers', async () => {
  const list = (await api.get(`/api/servers/${sid}/peers`)).json;
  const [a, b] = list;
  const ok = await api.put(`/api/peers/${a.id}`, { allowAccess: [b.id, b.id] });
  assert.is(ok.status, 200);
  assert.equal(ok.json.allowAccess, [b.id]);
  const other = (await api.get('/api/servers')).json.find((s: { id: number }) => s.id !== sid);
  const foreign = (await api.post(`/api/servers/${other.id}/peers`, {})).json;
  for (const ids of [[foreign.id], [a.id], [424242], ['x'], [-3], 'all']) {
    const r = await api.put(`/api/peers/${a.id}`, { allowAccess: ids });
    assert.is(r.status, 400, JSON.stringify(ids));
    assert.is(r.json.field, 'allowAccess');
  }
  assert.equal((await api.get(`/api/peers/${a.id}`)).json.allowAccess, [b.id]);
});

t('removes allowAccess pairs when the target peer is deleted', async () => {
  const list = (await api.get(`/api/servers/${sid}/peers`)).json;
  const a = list[0];
  const target = a.allowAccess[0];
  assert.is((await api.del(`/api/peers/${target}`)).status, 204);
  assert.equal((await api.get(`/api/peers/${a.id}`)).json.allowAccess, []);
});

t('updates fields, marks admin disables and clears them on enable', async () => {
  const p = (await api.get(`/api/servers/${sid}/peers`)).json[0];
  const off = await api.put(`/api/peers/${p.id}`, { enabled: false, name: 'laptop', dataLimitGB: 5, expiresAt: '2030-01-02T03:04:05+02:00', allowInternet: true });
  assert.is(off.status, 200);
  assert.is(off.json.enabled, false);
  assert.is(off.json.disabledReason, 'admin');
  assert.is(off.json.name, 'laptop');
  assert.is(off.json.dataLimitGB, 5);
  assert.is(off.json.expiresAt, '2030-01-02T01:04:05.000Z');
  assert.is(off.json.allowInternet, true);
  assert.is(off.json.ip, p.ip);
  const on = await api.put(`/api/peers/${p.id}`, { enabled: true, expiresAt: '' });
  assert.is(on.json.enabled, true);
  assert.is(on.json.disabledReason, '');
  assert.is(on.json.expiresAt, null);
});

t('lifts a data-limit restriction when the limit is raised above usage', async () => {
  const p = (await api.get(`/api/servers/${sid}/peers`)).json[0];
  d.daemon.app.store.db.prepare("UPDATE peers SET enabled = 0, disabled_reasons = 'data_limit', data_limit_gb = 1 WHERE id = ?").run(p.id);
  d.daemon.app.store.db.prepare('INSERT INTO peer_usage (peer_id, usage_bytes) VALUES (?, ?) ON CONFLICT (peer_id) DO UPDATE SET usage_bytes = excluded.usage_bytes').run(p.id, 2 * 1024 ** 3);
  const still = await api.put(`/api/peers/${p.id}`, { dataLimitGB: 2 });
  assert.is(still.json.enabled, false);
  assert.is(still.json.disabledReason, 'data_limit');
  const lifted = await api.put(`/api/peers/${p.id}`, { dataLimitGB: 3 });
  assert.is(lifted.json.enabled, true);
  assert.is(lifted.json.disabledReason, '');
});

t('a limit in tenths (dataLimitGiB, outside the contract) is kept exact; dataLimitGB reads it rounded up, and its echo keeps it', async () => {
  const made = await api.post(`/api/servers/${sid}/peers`, { name: 'tenths', dataLimitGiB: 1.5 });
  assert.is(made.status, 201);
  assert.equal([made.json.dataLimitGB, made.json.dataLimitGiB], [2, 1.5]);
  const id = made.json.id;
  // A client of the contract (no dataLimitGiB) sends back what it read, with another field changed: 1.5 stays.
  const { dataLimitGiB: _exact, ...contract } = made.json;
  const echoed = await api.put(`/api/peers/${id}`, { ...contract, name: 'tenths-2' });
  assert.equal([echoed.json.name, echoed.json.dataLimitGB, echoed.json.dataLimitGiB], ['tenths-2', 2, 1.5]);
  const whole = await api.put(`/api/peers/${id}`, { dataLimitGB: 3 });
  assert.equal([whole.json.dataLimitGB, whole.json.dataLimitGiB], [3, 3]);
  const both = await api.put(`/api/peers/${id}`, { dataLimitGB: 1, dataLimitGiB: 0.7 });
  assert.equal([both.json.dataLimitGB, both.json.dataLimitGiB], [1, 0.7]);
  for (const body of [{ dataLimitGiB: 1.55 }, { dataLimitGiB: -1 }, { dataLimitGiB: '1.5' }, { dataLimitGiB: 8_388_608 }, { dataLimitGB: 1, dataLimitGiB: 1.5 }]) {
    const r = await api.put(`/api/peers/${id}`, body);
    assert.is(r.status, 400, JSON.stringify(body));
    assert.is(r.json.field, 'dataLimitGiB', JSON.stringify(body));
  }
  assert.is((await api.get(`/api/peers/${id}`)).json.dataLimitGiB, 0.7);
  assert.is((await api.del(`/api/peers/${id}`)).status, 204);
});

t('refuses bad types, negative and huge numbers and bad timestamps', async () => {
  const p = (await api.get(`/api/servers/${sid}/peers`)).json[0];
  const cases: [Record<string, unknown>, string][] = [
    [{ dataLimitGB: -1 }, 'dataLimitGB'], [{ dataLimitGB: 1e300 }, 'dataLimitGB'], [{ dataLimitGB: '5' }, 'dataLimitGB'],
    [{ dataLimitGB: 1.5 }, 'dataLimitGB'], [{ enabled: 'yes' }, 'enabled'], [{ allowInternet: 1 }, 'allowInternet'],
    [{ expiresAt: 'tomorrow' }, 'expiresAt'], [{ expiresAt: 12 }, 'expiresAt'], [{ expiresAt: '2030-13-01T00:00:00Z' }, 'expiresAt'],
    [{ email: 'nobody' }, 'email'], [{ name: 'x'.repeat(65) }, 'name'], [{ name: ['a'] }, 'name'],
  ];
  for (const [body, field] of cases) {
    const r = await api.put(`/api/peers/${p.id}`, body);
    assert.is(r.status, 400, JSON.stringify(body));
    assert.is(r.json.field, field, JSON.stringify(body));
  }
});

t('pages peer lists with limit and offset, ordered by id', async () => {
  const all = (await api.get(`/api/servers/${sid}/peers`)).json.map((p: { id: number }) => p.id);
  const page = (await api.get(`/api/servers/${sid}/peers?limit=1&offset=1`)).json.map((p: { id: number }) => p.id);
  assert.equal(page, all.slice(1, 2));
  const bad = await api.get(`/api/servers/${sid}/peers?limit=-1`);
  assert.is(bad.status, 400);
  assert.is(bad.json.field, 'limit');
});

t('answers 404 for unknown servers and peers', async () => {
  assert.is((await api.get('/api/servers/999/peers')).status, 404);
  assert.is((await api.post('/api/servers/999/peers', {})).status, 404);
  for (const id of ['999', 'x', '0']) {
    for (const r of [await api.put(`/api/peers/${id}`, {}), await api.del(`/api/peers/${id}`), await api.get(`/api/peers/${id}/config`), await api.get(`/api/peers/${id}/qrcode`)]) {
      assert.is(r.status, 404);
      assert.equal([r.json.code, r.json.error], ['WGCP_PEER_NOT_FOUND', 'peer not found']);
    }
  }
});

t('deletes a peer and frees its address', async () => {
  const p = (await api.get(`/api/servers/${sid}/peers`)).json[0];
  assert.is((await api.del(`/api/peers/${p.id}`)).status, 204);
  assert.is((await api.del(`/api/peers/${p.id}`)).status, 404);
  const again = await api.post(`/api/servers/${sid}/peers`, { ip: p.ip });
  assert.is(again.status, 201);
});

t('a body with several bad fields is refused naming each: error and field for the first, errors.<field> for every one', async () => {
  const r = await api.post(`/api/servers/${sid}/peers`, { name: 'x', email: 'not-mail', ip: '10.50', dataLimitGB: 1.5, allowInternet: 'yes' });
  assert.is(r.status, 400);
  // The contract's body: a map of strings, its error and field as before.
  assert.ok(Object.values(r.json).every((v) => typeof v === 'string'));
  // The first is the first bad field in the description's order (resources/peer.ts), its type and format judged together.
  assert.is(r.json.field, 'email');
  assert.is(r.json.error, r.json['errors.email']);
  assert.is(r.json.code, 'WGCP_FIELD_INVALID');
  assert.equal(Object.keys(r.json).filter((k) => k.startsWith('errors.')).sort(), ['errors.allowInternet', 'errors.dataLimitGB', 'errors.email', 'errors.ip']);
  assert.match(r.json['errors.dataLimitGB'], /^dataLimitGB /);
  assert.match(r.json['errors.ip'], /^ip must be an IPv4 address/);
  assert.match(r.json['errors.email'], /^email must be an e-mail address/);
});

t.run();
