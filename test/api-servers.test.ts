import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { client, startTestDaemon, type TestDaemon } from './helpers/daemon';

const t = suite('servers API');
let d: TestDaemon;
let api: ReturnType<typeof client>;
t.before(async () => { d = await startTestDaemon(); api = client(d); });
t.after(async () => { await d.stop(); });

const home = { name: 'home', endpoint: 'vpn.example.com:51820', mode: 'forward' };

t('creates a server with defaults filled in and its private key kept secret', async () => {
  const r = await api.post('/api/servers', home);
  assert.is(r.status, 201);
  const s = r.json;
  assert.is(s.name, 'home');
  assert.is(s.mode, 'forward');
  assert.is(s.interface, `wgcp${s.id}`);
  assert.is(s.address, '10.1.0.1/24');
  assert.is(s.listenPort, 51820);
  assert.is(s.dns, 'auto', 'the router\'s resolver when one listens on the tunnel address');
  assert.is(s.mtu, null);
  assert.match(s.publicKey, /^[A-Za-z0-9+/]{43}=$/);
  assert.equal(s.peers, []);
  assert.equal(s.webhooks, []);
  assert.match(s.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  assert.not.ok('privateKey' in s);
  assert.not.ok(r.text.includes('rivateKey'));
});

t('ignores assigned fields on input', async () => {
  const r = await api.post('/api/servers', { ...home, endpoint: 'b.example.com:51821', id: 999, publicKey: 'x', peers: [{}], createdAt: 'yesterday' });
  assert.is(r.status, 201);
  assert.is.not(r.json.id, 999);
  assert.is.not(r.json.publicKey, 'x');
  assert.equal(r.json.peers, []);
  assert.is.not(r.json.createdAt, 'yesterday');
});

t('gives each new server the next free 10.<n>.0.1/24', async () => {
  const r = await api.post('/api/servers', { ...home, endpoint: 'c.example.com:51822' });
  assert.is(r.json.address, '10.3.0.1/24');
});

t('takes explicit interface, address, listen port, dns and mtu', async () => {
  const r = await api.post('/api/servers', { name: 'lab', endpoint: '203.0.113.7:4000', mode: 'standalone', interface: 'wglab', address: '192.168.77.1/26', listenPort: 4001, dns: '1.1.1.1, 9.9.9.9', mtu: 1380 });
  assert.is(r.status, 201);
  assert.is(r.json.interface, 'wglab');
  assert.is(r.json.address, '192.168.77.1/26');
  assert.is(r.json.listenPort, 4001);
  assert.is(r.json.dns, '1.1.1.1, 9.9.9.9');
  assert.is(r.json.mtu, 1380);
  assert.is(r.json.mode, 'standalone');
});

t('lists servers in id order and reads one', async () => {
  const list = await api.get('/api/servers');
  assert.is(list.status, 200);
  const ids = list.json.map((s: { id: number }) => s.id);
  assert.equal(ids, [...ids].sort((a: number, b: number) => a - b));
  assert.is(ids.length, 4);
  const one = await api.get(`/api/servers/${ids[0]}`);
  assert.is(one.status, 200);
  assert.is(one.json.name, 'home');
});

t('refuses a body without required fields, naming the field', async () => {
  for (const [body, field] of [[{ endpoint: 'x.example.com:1', mode: 'forward' }, 'name'], [{ name: 'a', mode: 'forward' }, 'endpoint'], [{ name: 'a', endpoint: 'x.example.com:2' }, 'mode']] as const) {
    const r = await api.post('/api/servers', body);
    assert.is(r.status, 400, JSON.stringify(body));
    assert.is(r.json.field, field);
    assert.ok(r.json.error.includes(field));
  }
});

t('refuses an unknown mode, a bad endpoint, wrong types and out-of-range numbers', async () => {
  const cases: [Record<string, unknown>, string][] = [
    [{ ...home, mode: 'bridge' }, 'mode'],
    [{ ...home, endpoint: 'no-port' }, 'endpoint'],
    [{ ...home, endpoint: 'host:70000' }, 'endpoint'],
    [{ ...home, name: 42 }, 'name'],
    [{ ...home, name: '' }, 'name'],
    [{ ...home, listenPort: -1 }, 'listenPort'],
    [{ ...home, listenPort: 1e12 }, 'listenPort'],
    [{ ...home, listenPort: '51820' }, 'listenPort'],
    [{ ...home, listenPort: 1.5 }, 'listenPort'],
    [{ ...home, mtu: 100 }, 'mtu'],
    [{ ...home, address: '10.9.0.0/24' }, 'address'],
    [{ ...home, address: '10.9.0.1' }, 'address'],
    [{ ...home, address: '300.1.1.1/24' }, 'address'],
    [{ ...home, dns: 'not-an-ip' }, 'dns'],
    [{ ...home, interface: 'this-name-is-too-long' }, 'interface'],
    [{ ...home, interface: 'bad name' }, 'interface'],
    [{ ...home, interface: '-f' }, 'interface'],
    [{ ...home, interface: '.hidden' }, 'interface'],
  ];
  for (const [body, field] of cases) {
    const r = await api.post('/api/servers', body);
    assert.is(r.status, 400, JSON.stringify(body));
    assert.is(r.json.field, field, JSON.stringify(body));
  }
});

t('refuses a duplicate listen port, interface or overlapping subnet', async () => {
  const port = await api.post('/api/servers', { ...home, endpoint: 'd.example.com:51820' });
  assert.is(port.status, 400);
  assert.is(port.json.field, 'listenPort');
  const iface = await api.post('/api/servers', { ...home, endpoint: 'd.example.com:52000', interface: 'wglab' });
  assert.is(iface.status, 400);
  assert.is(iface.json.field, 'interface');
  const overlap = await api.post('/api/servers', { ...home, endpoint: 'd.example.com:52001', address: '10.1.0.129/25' });
  assert.is(overlap.status, 400);
  assert.is(overlap.json.field, 'address');
});

t('updates only the fields sent and keeps the key pair', async () => {
  const before = (await api.get('/api/servers/1')).json;
  const r = await api.put('/api/servers/1', { name: 'home2', mode: 'standalone', publicKey: 'ignored' });
  assert.is(r.status, 200);
  assert.is(r.json.name, 'home2');
  assert.is(r.json.mode, 'standalone');
  assert.is(r.json.endpoint, before.endpoint);
  assert.is(r.json.publicKey, before.publicKey);
  assert.ok(r.json.updatedAt >= before.updatedAt);
});

t('refuses an update that would leave a peer outside the subnet', async () => {
  const peer = await api.post('/api/servers/1/peers', { ip: '10.1.0.200' });
  assert.is(peer.status, 201);
  const r = await api.put('/api/servers/1', { address: '10.1.0.1/25' });
  assert.is(r.status, 400);
  assert.is(r.json.field, 'address');
  assert.is((await api.get('/api/servers/1')).json.address, '10.1.0.1/24');
});

t('answers 404 for unknown and non-numeric server ids', async () => {
  for (const id of ['9999', 'abc', '0', '-1', '1.5', '99999999999999999999']) {
    for (const r of [await api.get(`/api/servers/${id}`), await api.put(`/api/servers/${id}`, { name: 'x' }), await api.del(`/api/servers/${id}`)]) {
      assert.is(r.status, 404, id);
      assert.is(r.json.error, 'server not found');
    }
  }
});

t('deletes a server with its peers and webhooks', async () => {
  const s = (await api.post('/api/servers', { ...home, endpoint: 'e.example.com:53000' })).json;
  const p = (await api.post(`/api/servers/${s.id}/peers`, {})).json;
  const w = (await api.post(`/api/servers/${s.id}/webhooks`, { url: 'http://127.0.0.1:9/hook' })).json;
  const r = await api.del(`/api/servers/${s.id}`);
  assert.is(r.status, 204);
  assert.is(r.text, '');
  assert.is((await api.get(`/api/servers/${s.id}`)).status, 404);
  assert.is((await api.put(`/api/peers/${p.id}`, { name: 'x' })).status, 404);
  assert.is((await api.get(`/api/webhooks/${w.id}`)).status, 404);
  const row = d.daemon.app.store.db.prepare('SELECT COUNT(*) AS n FROM peer_access').get() as { n: number };
  assert.is(row.n, 0);
});

t('?peers=none leaves the peers out of a server and of the list; any other value is a 400', async () => {
  const s = (await api.post('/api/servers', { ...home, endpoint: 'e.example.com:53100' })).json;
  await api.post(`/api/servers/${s.id}/peers`, {});
  const full = (await api.get(`/api/servers/${s.id}`)).json;
  assert.is(full.peers.length, 1);
  const light = (await api.get(`/api/servers/${s.id}?peers=none`)).json;
  assert.not.ok('peers' in light);
  assert.equal(light, (({ peers: _p, ...rest }) => rest)(full));
  const list = (await api.get('/api/servers?peers=none')).json as Record<string, unknown>[];
  assert.ok(list.length > 0 && list.every((x) => !('peers' in x)));
  const bad = await api.get('/api/servers?peers=all');
  assert.is(bad.status, 400);
  assert.is(bad.json.field, 'peers');
});

t('an update answers without the peers when asked ?peers=none, with them by default; a bad value changes nothing', async () => {
  const s = (await api.post('/api/servers', { ...home, endpoint: 'e.example.com:53101' })).json;
  await api.post(`/api/servers/${s.id}/peers`, {});
  const light = await api.put(`/api/servers/${s.id}?peers=none`, { name: 'light' });
  assert.is(light.status, 200);
  assert.is(light.json.name, 'light');
  assert.not.ok('peers' in light.json);
  assert.is((await api.put(`/api/servers/${s.id}`, { name: 'whole' })).json.peers.length, 1);
  const bad = await api.put(`/api/servers/${s.id}?peers=some`, { name: 'never' });
  assert.is(bad.status, 400);
  assert.is(bad.json.field, 'peers');
  assert.is((await api.get(`/api/servers/${s.id}`)).json.name, 'whole');
});

t.run();
