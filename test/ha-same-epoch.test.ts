// Two routers promoted from the same epoch while cut off from each other (two real daemons on
// loopback, real SQLite, the pair's channel through a link the test cuts): both take the same
// epoch number, from promotions with different nodes. When the channel comes back, exactly one
// stays primary; the other becomes standby, keeps its lone change aside and follows.
import fs from 'node:fs';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { client, startTestDaemon, tempDir, type TestDaemon } from './helpers/daemon';
import { CuttableLink } from './helpers/cuttable-link';
import { unservedPorts } from './helpers/ports';
import { eventually } from './helpers/receiver';
import { askDaemon } from '../src/cli/daemon-socket';

const t = suite('standby pair: the same epoch taken twice');

const w = {} as { a: TestDaemon; b: TestDaemon; toA: CuttableLink; toB: CuttableLink; serverId: number };
const ha = async (d: TestDaemon) => (await client(d).get('/api/ha')).json as { role: string; epoch: number; sequence: number; partner: { connected: boolean } };
const notify = async (d: TestDaemon, state: string) => assert.is((await askDaemon(d.dataDir, 'POST', '/api/ha/notify', { state }))?.status, 200);
const peerNames = async (d: TestDaemon) => ((await client(d).get(`/api/servers/${w.serverId}/peers`)).json as { name: string }[]).map((p) => p.name).sort();

t.before(async () => {
  const keyFile = path.join(tempDir('wgcp-ha-key-'), 'key');
  fs.writeFileSync(keyFile, 'the-pair-shared-secret-0123456789\n', { mode: 0o600 });
  const [pa, pb] = unservedPorts(2);
  w.toA = await CuttableLink.open(pa);
  w.toB = await CuttableLink.open(pb);
  const env = (self: number, partner: CuttableLink) => ({
    WGCP_API_KEY: 'pair-api-key-0123456789', SERVER_SALT: 'pair-salt-0123456789abcdef', WGCP_HA_KEY_FILE: keyFile,
    WGCP_HA_LISTEN: `127.0.0.1:${self}`, WGCP_HA_PARTNER: `http://127.0.0.1:${partner.port}`,
  });
  w.a = await startTestDaemon({ env: env(pa, w.toB) });
  w.b = await startTestDaemon({ env: env(pb, w.toA) });
});

t.after(async () => {
  await w.b?.stop();
  await w.a?.stop();
  await w.toA?.close();
  await w.toB?.close();
});

t('two routers both told MASTER while cut off take the same epoch', async () => {
  await notify(w.a, 'MASTER');
  w.serverId = (await client(w.a).post('/api/servers', { name: 'home', endpoint: 'vpn.example.com:51820', mode: 'forward' })).json.id;
  await eventually('the standby holds the server', async () => ((await ha(w.b)).sequence === (await ha(w.a)).sequence ? true : undefined));
  // Both standby at the same epoch, then cut off from each other, then both told MASTER.
  await notify(w.a, 'BACKUP');
  w.toA.cut();
  w.toB.cut();
  await notify(w.a, 'MASTER');
  await notify(w.b, 'MASTER');
  const [a, b] = [await ha(w.a), await ha(w.b)];
  assert.equal([a.role, b.role], ['primary', 'primary']);
  assert.is(a.epoch, b.epoch, 'the same epoch number');
  assert.is((await client(w.a).post(`/api/servers/${w.serverId}/peers`, { name: 'made-on-a' })).status, 201);
  assert.is((await client(w.b).post(`/api/servers/${w.serverId}/peers`, { name: 'made-on-b' })).status, 201);
});

t('when they meet again exactly one stays primary and the other follows it, its lone change kept aside', async () => {
  w.toA.mend();
  w.toB.mend();
  const [winner, loser] = await eventually('one of the two yields', async () => {
    const [a, b] = [await ha(w.a), await ha(w.b)];
    if (a.role === 'primary' && b.role === 'standby') return [w.a, w.b];
    if (b.role === 'primary' && a.role === 'standby') return [w.b, w.a];
    return undefined;
  }, 20_000);
  const own = loser === w.a ? 'made-on-a' : 'made-on-b'; console.log(JSON.stringify([await ha(winner), await ha(loser), winner.daemon.app.store.ha.epochs(), loser.daemon.app.store.ha.epochs()]));
  const theirs = loser === w.a ? 'made-on-b' : 'made-on-a';
  await eventually('the standby holds the primary\'s line', async () => ((await ha(loser)).sequence === (await ha(winner)).sequence && (await peerNames(loser)).includes(theirs) ? true : undefined), 20_000);
  assert.equal(await peerNames(loser), [theirs]);
  assert.equal(await peerNames(winner), [theirs], 'the primary never took the other\'s change');
  const lone = fs.readdirSync(loser.dataDir).filter((f) => f.startsWith('ha-lone-changes-'));
  assert.is(lone.length, 1, 'the lone changes are kept in a file');
  assert.ok(fs.readFileSync(path.join(loser.dataDir, lone[0]), 'utf8').includes(own), 'the file holds the change made alone');
  assert.is((await client(loser).post(`/api/servers/${w.serverId}/peers`, { name: 'refused' })).status, 409);
  assert.equal([(await ha(winner)).role, (await ha(loser)).role], ['primary', 'standby'], 'still one primary');
});

t.run();
