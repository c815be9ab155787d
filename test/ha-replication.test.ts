// A standby pair in one process (two real daemons on loopback, real SQLite, no kernel): what
// the primary's jobs write reaches the standby (usage totals, peers' last endpoints), and the
// jobs that write run only where changes are taken.
import fs from 'node:fs';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { client, startTestDaemon, tempDir, type TestDaemon } from './helpers/daemon';
import { unservedPorts } from './helpers/ports';
import { eventually } from './helpers/receiver';
import { askDaemon } from '../src/cli/daemon-socket';
import { recordUsage } from '../src/ops/usage';
import { runCommand } from '../src/cli/main';
import { AUTH_HEADER, saltTag, signRequest } from '../src/ha/auth';
import { MIGRATIONS } from '../src/store/migrations';

const t = suite('standby pair: what the primary\'s jobs write, and where jobs run');

const w = {} as { a: TestDaemon; b: TestDaemon; peer: { id: number; publicKey: string }; serverId: number; ports: { a: number; c: number }; keyFile: string };

t.before(async () => {
  const dir = tempDir('wgcp-ha-key-');
  const keyFile = path.join(dir, 'key');
  fs.writeFileSync(keyFile, 'the-pair-shared-secret-0123456789\n', { mode: 0o600 });
  const [pa, pb, pc] = unservedPorts(3);
  w.ports = { a: pa, c: pc };
  w.keyFile = keyFile;
  const env = (self: number, partner: number) => ({
    WGCP_API_KEY: 'pair-api-key-0123456789', SERVER_SALT: 'pair-salt-0123456789abcdef', WGCP_HA_KEY_FILE: keyFile,
    WGCP_HA_LISTEN: `127.0.0.1:${self}`, WGCP_HA_PARTNER: `http://127.0.0.1:${partner}`, WGCP_HA_JOURNAL_KEEP: '10', WGCP_HA_USAGE_EVERY_S: '0',
  });
  w.a = await startTestDaemon({ env: env(pa, pb) });
  w.b = await startTestDaemon({ env: env(pb, pa) });
  assert.is((await askDaemon(w.a.dataDir, 'POST', '/api/ha/notify', { state: 'MASTER' }))?.status, 200);
  await eventually('the standby connected', async () => ((await client(w.a).get('/api/ha')).json.partner.connected ? true : undefined));
  w.serverId = (await client(w.a).post('/api/servers', { name: 'home', endpoint: 'vpn.example.com:51820', mode: 'forward' })).json.id;
  w.peer = (await client(w.a).post(`/api/servers/${w.serverId}/peers`, { name: 'phone' })).json;
});

t.after(async () => {
  await w.b?.stop();
  await w.a?.stop();
});

const usageOf = (d: TestDaemon, peerId: number) => d.daemon.app.store.db.prepare('SELECT usage_bytes FROM peer_usage WHERE peer_id = ?').pluck().get(peerId);

t('the usage cycle\'s totals and the peers\' last endpoints reach the standby with the change', async () => {
  const at = new Date().toISOString();
  await recordUsage(w.a.daemon.app, () => ({ traffic: [[w.peer.id, w.serverId, 1000, 2000] as const], baselines: [] }), at, {}, new Map([[w.peer.publicKey, '198.51.100.7:40123']]));
  assert.is(usageOf(w.a, w.peer.id), 3000);
  // Answered once the standby holds it: no wait.
  assert.is(usageOf(w.b, w.peer.id), 3000);
  assert.equal(w.b.daemon.app.store.ha.endpoints(), [{ peerId: w.peer.id, endpoint: '198.51.100.7:40123', at }]);
});

t('a row with bytes (a passkey\'s public key) reaches the standby byte for byte', async () => {
  const publicKey = new Uint8Array([0, 1, 2, 250, 251, 255]);
  const made = await w.a.daemon.app.runner.run('test.passkey', () => ({
    commit: ({ store }) => store.passkeys.insert({ webauthnId: 'cred-1', publicKey, counter: 0, transports: ['usb'], name: 'key', owner: { subject: 'ana', email: null, role: 'admin' }, createdAt: new Date().toISOString() }),
  }));
  assert.equal(w.b.daemon.app.store.passkeys.get(made.id)?.publicKey, publicKey);
});

t('the standby\'s journal (what it serves once promoted) keeps a bounded tail as the primary\'s does', async () => {
  for (let i = 0; i < 25; i++) assert.is((await client(w.a).post(`/api/servers/${w.serverId}/peers`, { name: `tail-${i}` })).status, 201);
  const seq = w.a.daemon.app.store.ha.state().seq;
  assert.is(w.b.daemon.app.store.ha.state().seq, seq, 'answered once the standby holds it');
  const kept = w.b.daemon.app.store.db.prepare('SELECT DISTINCT seq FROM ha_journal').pluck().all() as number[];
  assert.ok(Math.min(...kept) > seq - 20, `the standby's journal starts at ${Math.min(...kept)}, sequence ${seq}`);
  assert.ok(w.b.daemon.app.store.ha.prunedUpTo() >= seq - 20);
});

t('a router that ran alone joins as standby: its own changes are kept aside and give way to the primary\'s snapshot', async () => {
  const base = { WGCP_API_KEY: 'pair-api-key-0123456789', SERVER_SALT: 'pair-salt-0123456789abcdef' };
  const alone = await startTestDaemon({ env: base });
  assert.is((await client(alone).post('/api/servers', { name: 'mine', endpoint: 'vpn.example.com:51821', mode: 'forward' })).status, 201);
  await alone.stop();
  const c = await startTestDaemon({ dataDir: alone.dataDir, env: { ...base, WGCP_HA_KEY_FILE: w.keyFile, WGCP_HA_LISTEN: `127.0.0.1:${w.ports.c}`, WGCP_HA_PARTNER: `http://127.0.0.1:${w.ports.a}` } });
  try {
    const names = async () => ((await client(c).get('/api/servers')).json as { name: string }[]).map((s) => s.name);
    await eventually('the primary\'s servers on the joining router', async () => ((await names()).includes('home') ? true : undefined));
    assert.equal(await names(), ['home']);
    assert.ok(fs.readdirSync(c.dataDir).some((f) => f.startsWith('wgcp.db.before-restore-')), 'its database before is kept');
    assert.ok(fs.readdirSync(c.dataDir).some((f) => f.startsWith('ha-lone-changes-')), 'and its changes, in the file of lone changes');
  } finally {
    await c.stop();
  }
});

t('a standby holding another device API salt is not served (devices\' keys derive from it)', async () => {
  const key = Buffer.from(fs.readFileSync(w.keyFile, 'utf8').trim());
  const ask = async (salt: string, schema = MIGRATIONS.length) => {
    const line = w.a.daemon.app.store.ha.currentEpoch();
    const tail = `/ha/tail?epoch=2&node=${line.node}&start=${line.startSeq}&seq=${w.a.daemon.app.store.ha.state().seq}&wait=0&salt=${saltTag(key, salt)}&schema=${schema}`;
    const r = await fetch(`http://127.0.0.1:${w.ports.a}${tail}`, { headers: { [AUTH_HEADER]: signRequest(key, 'GET', tail).header } });
    return { status: r.status, body: await r.json() };
  };
  assert.equal(await ask('another-salt-0123456789abcdef'), { status: 409, body: { saltDiffers: true } });
  assert.is((await ask('pair-salt-0123456789abcdef')).status, 200);
});

t('a standby on an older schema is not served (it would drop the columns it lacks)', async () => {
  const key = Buffer.from(fs.readFileSync(w.keyFile, 'utf8').trim());
  const tail = `/ha/tail?epoch=2&seq=${w.a.daemon.app.store.ha.state().seq}&wait=0&salt=${saltTag(key, 'pair-salt-0123456789abcdef')}&schema=${MIGRATIONS.length - 1}`;
  const r = await fetch(`http://127.0.0.1:${w.ports.a}${tail}`, { headers: { [AUTH_HEADER]: signRequest(key, 'GET', tail).header } });
  assert.is(r.status, 409);
  assert.equal(await r.json(), { schemaOlder: true, schema: MIGRATIONS.length });
});

t('the jobs that write run on the primary only, and start on the standby once it is promoted', async () => {
  assert.ok(w.a.daemon.app.services.clockWatch, 'the primary runs its jobs');
  assert.is(w.b.daemon.app.services.clockWatch, null, 'the standby runs none');
  const out: string[] = [];
  assert.is(await runCommand(['--data-dir', w.b.dataDir, 'ha', 'status', '--json'], (s) => out.push(s)), 0);
  assert.is(JSON.parse(out.join('')).role, 'standby');
  assert.is((await askDaemon(w.a.dataDir, 'POST', '/api/ha/notify', { state: 'BACKUP' }))?.status, 200);
  assert.is((await askDaemon(w.b.dataDir, 'POST', '/api/ha/notify', { state: 'MASTER' }))?.status, 200);
  assert.ok(w.b.daemon.app.services.clockWatch, 'the promoted standby runs the jobs');
  assert.is((await client(w.b).post(`/api/servers/${w.serverId}/peers`, { name: 'laptop' })).status, 201);
  await eventually('the old primary follows the new one', async () => (((await client(w.a).get(`/api/servers/${w.serverId}/peers`)).json as { name: string }[]).some((p) => p.name === 'laptop') ? true : undefined));
});

t.run();
