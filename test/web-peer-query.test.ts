// The peer list's query, as the dashboard's table uses it: q searches name, e-mail, address
// and public key; sort and order choose the order (addresses as numbers); limit and offset
// page; X-Total-Count counts every match. Bad values are 400 naming the parameter.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { client, startTestDaemon, type TestDaemon } from './helpers/daemon';

const t = suite('peer list query: q, sort, order, limit, offset, X-Total-Count');

let d: TestDaemon;
let api: ReturnType<typeof client>;
let sid = 0;
const names = ['Zoe phone', 'adam laptop', 'Bob_tablet', 'carol 100%'];

t.before(async () => {
  d = await startTestDaemon();
  api = client(d);
  sid = (await api.post('/api/servers', { name: 'home', endpoint: 'vpn.example.com:51820', mode: 'forward', address: '10.9.0.1/24' })).json.id;
  // Addresses chosen so that text order and number order differ (10.9.0.10 < 10.9.0.9 as text).
  const ips = ['10.9.0.9', '10.9.0.10', '10.9.0.100', '10.9.0.2'];
  for (let i = 0; i < names.length; i++) {
    assert.is((await api.post(`/api/servers/${sid}/peers`, { name: names[i], ip: ips[i], email: i === 1 ? 'adam@example.com' : '' })).status, 201);
  }
});
t.after(async () => { await d.stop(); });

const list = async (query: string) => {
  const r = await api.get(`/api/servers/${sid}/peers?${query}`);
  return { status: r.status, json: r.json, total: r.headers.get('x-total-count'), names: Array.isArray(r.json) ? r.json.map((p: { name: string }) => p.name) : [] };
};

t('without parameters the list is whole, by id, as the contract has it', async () => {
  const r = await list('');
  assert.equal(r.names, names);
});

t('q finds by name (any case), e-mail, address and public key, and the total counts every match', async () => {
  assert.equal((await list('q=PHONE')).names, ['Zoe phone']);
  assert.equal((await list('q=adam@example')).names, ['adam laptop']);
  assert.equal((await list('q=10.9.0.10&sort=ip')).names, ['adam laptop', 'Bob_tablet']);
  const key = (await api.get(`/api/servers/${sid}/peers`)).json[2].publicKey as string;
  assert.equal((await list(`q=${encodeURIComponent(key.slice(3, 20))}`)).names, ['Bob_tablet']);
  const r = await list('q=o&limit=1');
  assert.is(r.total, '4');
  assert.is(r.names.length, 1);
});

t('% and _ in q are plain characters, not wildcards', async () => {
  assert.equal((await list('q=100%25')).names, ['carol 100%']);
  assert.equal((await list('q=b_t')).names, ['Bob_tablet']);
  assert.equal((await list('q=%25')).names, ['carol 100%']);
});

t('sort by name ignores case; by address sorts numbers; order desc reverses; offset pages', async () => {
  assert.equal((await list('sort=name')).names, ['adam laptop', 'Bob_tablet', 'carol 100%', 'Zoe phone']);
  assert.equal((await list('sort=ip')).names, ['carol 100%', 'Zoe phone', 'adam laptop', 'Bob_tablet']);
  assert.equal((await list('sort=ip&order=desc')).names, ['Bob_tablet', 'adam laptop', 'Zoe phone', 'carol 100%']);
  const page = await list('sort=name&limit=2&offset=2');
  assert.equal(page.names, ['carol 100%', 'Zoe phone']);
  assert.is(page.total, '4');
});

t('a bad sort, order, q, limit or offset is 400 naming it', async () => {
  for (const [query, field] of [['sort=password', 'sort'], ['order=up', 'order'], [`q=${'x'.repeat(201)}`, 'q'], ['limit=-1', 'limit'], ['offset=x', 'offset'], ['limit=10001', 'limit']]) {
    const r = await list(query);
    assert.is(r.status, 400, query);
    assert.is(r.json.field, field, query);
  }
});

t.run();
