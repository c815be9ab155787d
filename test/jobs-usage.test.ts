import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { client, startTestDaemon, tempDir, type TestDaemon } from './helpers/daemon';
import { countingKernel } from './helpers/counting-kernel';
import { generateKeyPair } from '../src/wg/keys';
import type { WgcpEvent } from '../src/events/bus';
import { GB } from '../src/peer-state';
import { counterDelta, planUsageCycle, usageMonth } from '../src/jobs/usage-delta';
import { collectUsage } from '../src/jobs/usage';
import { expirePeers, resetIfNewMonth } from '../src/jobs/calendar';
import { eventually } from './helpers/receiver';

const t = suite('usage, limits, monthly reset and expiry');

interface Rig {
  d: TestDaemon;
  api: ReturnType<typeof client>;
  k: ReturnType<typeof countingKernel>;
  clock: { now: Date };
  events: WgcpEvent[];
}

async function rig(dataDir = tempDir(), clock = { now: new Date(2026, 10, 15, 12, 0, 0) }): Promise<Rig> {
  const k = countingKernel();
  const d = await startTestDaemon({ dataDir, options: { kernel: k.kernel, now: () => clock.now, events: { schedule: false } } });
  const events: WgcpEvent[] = [];
  d.daemon.app.events.subscribe((e) => events.push(e));
  return { d, api: client(d), k, clock, events };
}

async function peerOn(r: Rig, body: Record<string, unknown> = {}) {
  const sid = (await r.api.post('/api/servers', { name: 's', endpoint: 'vpn.example.com:51820', mode: 'forward' })).json.id;
  const peer = (await r.api.post(`/api/servers/${sid}/peers`, { name: 'p', ...body })).json;
  return { sid, peer };
}

const usageOf = async (r: Rig, id: number) => (await r.api.get(`/api/peers/${id}`)).json;

t('counts growth as the difference and a smaller counter as a restart from zero', () => {
  const prev = { publicKey: 'K', rxBytes: 1000, txBytes: 500, latestHandshake: 1 };
  assert.is(counterDelta(prev, 'K', { rxBytes: 1600, txBytes: 700, latestHandshake: 2 }), 800);
  assert.is(counterDelta(prev, 'K', { rxBytes: 300, txBytes: 900, latestHandshake: 2 }), 300 + 400);
  assert.is(counterDelta(undefined, 'K', { rxBytes: 10, txBytes: 5, latestHandshake: 0 }), 15);
  // A new key is a new peer on the interface: its counters are all new.
  assert.is(counterDelta(prev, 'N', { rxBytes: 2000, txBytes: 0, latestHandshake: 0 }), 2000);
});

t('skips a server whose interface reports nothing and keeps baselines of peers it does not see', () => {
  const peers = [{ id: 1, serverId: 1, publicKey: 'A', enabled: true, baseline: null }, { id: 2, serverId: 2, publicKey: 'B', enabled: true, baseline: null },
    { id: 3, serverId: 2, publicKey: 'C', enabled: true, baseline: { publicKey: 'C', rxBytes: 50, txBytes: 50, latestHandshake: 0 } }];
  const plan = planUsageCycle(peers, new Map([[1, new Map()], [2, new Map([['B', { rxBytes: 7, txBytes: 3, latestHandshake: 9 }]])]]));
  assert.equal(plan.skippedServers, [1]);
  assert.equal(plan.traffic, [[2, 2, 7, 3]]);
  assert.equal(plan.baselines, [[2, 'B', 7, 3, 9]]);
});

t('usage months follow local time', () => {
  assert.is(usageMonth(new Date(2026, 0, 1, 0, 0, 0)), '2026-01');
  assert.is(usageMonth(new Date(2025, 11, 31, 23, 59, 59)), '2025-12');
});

t('adds rx+tx deltas across cycles, through a counter reset and a daemon restart', async () => {
  const dir = tempDir();
  let r = await rig(dir);
  const { peer } = await peerOn(r);
  r.k.counters.set(peer.publicKey, { rxBytes: 1000, txBytes: 200, latestHandshake: 1 });
  await collectUsage(r.d.daemon.app);
  assert.is((await usageOf(r, peer.id)).currentDataUsageBytes, 1200);
  r.k.counters.set(peer.publicKey, { rxBytes: 1500, txBytes: 300, latestHandshake: 2 });
  await collectUsage(r.d.daemon.app);
  assert.is((await usageOf(r, peer.id)).currentDataUsageBytes, 1800);
  // The interface restarted: counters began again from zero.
  r.k.counters.set(peer.publicKey, { rxBytes: 40, txBytes: 60, latestHandshake: 3 });
  await collectUsage(r.d.daemon.app);
  assert.is((await usageOf(r, peer.id)).currentDataUsageBytes, 1900);
  await r.d.stop();
  // A new daemon on the same data: the persisted baseline means only new traffic counts.
  r = await rig(dir);
  r.k.counters.set(peer.publicKey, { rxBytes: 140, txBytes: 60, latestHandshake: 4 });
  await collectUsage(r.d.daemon.app);
  assert.is((await usageOf(r, peer.id)).currentDataUsageBytes, 2000);
  await collectUsage(r.d.daemon.app);
  assert.is((await usageOf(r, peer.id)).currentDataUsageBytes, 2000);
  await r.d.stop();
});

t('counts every peer of a cycle whose rows fill several batches of statements, and the remainder', async () => {
  const r = await rig();
  const { sid } = await peerOn(r);
  const peers: { id: number; publicKey: string }[] = [];
  for (let i = 0; i < 122; i++) peers.push((await r.api.post(`/api/servers/${sid}/peers`, {})).json);
  const cycle = async (round: number) => {
    peers.forEach((p, i) => r.k.counters.set(p.publicKey, { rxBytes: round * (100 + i), txBytes: round * i, latestHandshake: round }));
    await collectUsage(r.d.daemon.app);
  };
  await cycle(1);
  await cycle(3);
  const usage = (await r.api.get(`/api/servers/${sid}/peers?limit=1000`)).json as { id: number; currentDataUsageBytes: number }[];
  const byId = new Map(usage.map((p) => [p.id, p.currentDataUsageBytes]));
  peers.forEach((p, i) => assert.is(byId.get(p.id), 3 * (100 + 2 * i), `peer ${i}`));
  await r.d.stop();
});

t('sees every change to the peers between cycles: new, re-keyed and deleted peers', async () => {
  const r = await rig();
  const { sid, peer } = await peerOn(r);
  r.k.counters.set(peer.publicKey, { rxBytes: 100, txBytes: 0, latestHandshake: 1 });
  await collectUsage(r.d.daemon.app);
  const added = (await r.api.post(`/api/servers/${sid}/peers`, {})).json;
  r.k.counters.set(added.publicKey, { rxBytes: 7, txBytes: 0, latestHandshake: 1 });
  await collectUsage(r.d.daemon.app);
  assert.is((await usageOf(r, added.id)).currentDataUsageBytes, 7, 'a peer created after the last cycle is counted');
  // A new key is a new peer on the interface: its counters start from zero.
  const rekeyed = (await r.api.put(`/api/peers/${peer.id}`, { publicKey: generateKeyPair().publicKey })).json;
  r.k.counters.set(rekeyed.publicKey, { rxBytes: 30, txBytes: 0, latestHandshake: 2 });
  await collectUsage(r.d.daemon.app);
  assert.is((await usageOf(r, peer.id)).currentDataUsageBytes, 130);
  const gone = [peer.id, added.id];
  assert.is((await r.api.del(`/api/servers/${sid}`)).status, 204);
  // Peers gone with their server are not written to and do not fail the cycle: another
  // server keeps the cycle reading, and its interface still reports the gone peers' keys.
  const survivor = (await peerOn(r)).peer;
  r.k.counters.set(survivor.publicKey, { rxBytes: 11, txBytes: 0, latestHandshake: 3 });
  const cycle = await collectUsage(r.d.daemon.app);
  assert.equal(cycle.plan.traffic.map(([id]) => id), [survivor.id], 'only the peer that exists moved traffic');
  assert.equal(cycle.plan.baselines.map(([id]) => id), [survivor.id], 'only the peer that exists has a baseline written');
  const kept = r.d.daemon.app.store.db.prepare('SELECT COUNT(*) FROM peer_usage WHERE peer_id IN (?, ?)').pluck().get(...gone);
  assert.is(kept, 0, 'no counters are kept for the gone peers');
  assert.is((await usageOf(r, survivor.id)).currentDataUsageBytes, 11);
  await r.d.stop();
});

t('a cycle writes one narrow row for each peer whose counters moved, and never the peers table (flash)', async () => {
  const r = await rig();
  const { sid, peer } = await peerOn(r);
  const idle = (await r.api.post(`/api/servers/${sid}/peers`, {})).json;
  r.k.counters.set(peer.publicKey, { rxBytes: 100, txBytes: 10, latestHandshake: 1 });
  r.k.counters.set(idle.publicKey, { rxBytes: 0, txBytes: 0, latestHandshake: 0 });
  await collectUsage(r.d.daemon.app);
  // Writes counted by temporary triggers on the daemon's own connection.
  const db = r.d.daemon.app.store.db;
  db.exec(`CREATE TEMP TABLE writes (t TEXT);
    CREATE TEMP TRIGGER w_peers AFTER UPDATE ON main.peers BEGIN INSERT INTO writes VALUES ('peers'); END;
    CREATE TEMP TRIGGER w_usage_u AFTER UPDATE ON main.peer_usage BEGIN INSERT INTO writes VALUES ('peer_usage ' || new.peer_id); END;
    CREATE TEMP TRIGGER w_usage_i AFTER INSERT ON main.peer_usage BEGIN INSERT INTO writes VALUES ('peer_usage ' || new.peer_id); END;`);
  const writes = () => (db.prepare('SELECT t FROM temp.writes').pluck().all() as string[]);
  r.k.counters.set(peer.publicKey, { rxBytes: 300, txBytes: 10, latestHandshake: 1 });
  await collectUsage(r.d.daemon.app);
  assert.equal(writes(), [`peer_usage ${peer.id}`], 'one row, the busy peer\'s; the idle one and the peers table untouched');
  await collectUsage(r.d.daemon.app);
  assert.equal(writes(), [`peer_usage ${peer.id}`], 'a cycle with nothing moved writes nothing');
  assert.is((await usageOf(r, peer.id)).currentDataUsageBytes, 310);
  await r.d.stop();
});

t('a cycle is one transaction: when one write fails, no peer of the cycle is counted', async () => {
  const r = await rig();
  const { sid, peer } = await peerOn(r);
  const other = (await r.api.post(`/api/servers/${sid}/peers`, {})).json;
  r.k.counters.set(peer.publicKey, { rxBytes: 100, txBytes: 0, latestHandshake: 1 });
  // A counter that cannot be stored (NaN becomes NULL, refused by the schema) fails the cycle.
  r.k.counters.set(other.publicKey, { rxBytes: Number.NaN, txBytes: 0, latestHandshake: 1 });
  const failed = await collectUsage(r.d.daemon.app).then(() => null, (err: unknown) => err);
  assert.instance(failed, Error, 'the cycle fails');
  assert.is((await usageOf(r, peer.id)).currentDataUsageBytes, 0);
  r.k.counters.set(other.publicKey, { rxBytes: 5, txBytes: 0, latestHandshake: 1 });
  await collectUsage(r.d.daemon.app);
  assert.is((await usageOf(r, peer.id)).currentDataUsageBytes, 100);
  assert.is((await usageOf(r, other.id)).currentDataUsageBytes, 5);
  await r.d.stop();
});

t('restricts a peer that reaches its limit: off the interface, data_limit, announced once', async () => {
  const r = await rig();
  const { sid, peer } = await peerOn(r, { dataLimitGB: 1, email: 'p@example.com' });
  r.k.counters.set(peer.publicKey, { rxBytes: GB - 10, txBytes: 5, latestHandshake: 1 });
  const first = await collectUsage(r.d.daemon.app);
  assert.equal(first.restricted, []);
  r.k.counters.set(peer.publicKey, { rxBytes: GB, txBytes: 5, latestHandshake: 2 });
  const second = await collectUsage(r.d.daemon.app);
  assert.equal(second.restricted, [peer.id]);
  const shown = await usageOf(r, peer.id);
  assert.is(shown.enabled, false);
  assert.is(shown.disabledReason, 'data_limit');
  assert.is(shown.currentDataUsageBytes, GB + 5);
  const change = r.k.applied.at(-1)!;
  assert.is(change.before!.enabled, true);
  assert.is(change.after!.enabled, false);
  assert.is(change.server.id, sid);
  const restricted = r.events.filter((e) => e.event === 'peerRestricted');
  assert.is(restricted.length, 1);
  assert.is(restricted[0].action, 4);
  assert.is((restricted[0].data.peer as { id: number }).id, peer.id);
  await collectUsage(r.d.daemon.app);
  assert.is(r.events.filter((e) => e.event === 'peerRestricted').length, 1);
  await r.d.stop();
});

t('raising the limit above usage lifts the restriction; a lower limit restricts at the next cycle', async () => {
  const r = await rig();
  const { peer } = await peerOn(r, { dataLimitGB: 1 });
  r.k.counters.set(peer.publicKey, { rxBytes: GB + 1, txBytes: 0, latestHandshake: 1 });
  await collectUsage(r.d.daemon.app);
  assert.is((await usageOf(r, peer.id)).disabledReason, 'data_limit');
  const raised = await r.api.put(`/api/peers/${peer.id}`, { dataLimitGB: 2 });
  assert.is(raised.json.enabled, true);
  assert.is(raised.json.disabledReason, '');
  await r.api.put(`/api/peers/${peer.id}`, { dataLimitGB: 1 });
  assert.equal((await collectUsage(r.d.daemon.app)).restricted, [peer.id]);
  await r.d.stop();
});

t('the monthly reset zeroes usage and lifts data-limit restrictions but keeps admin disables', async () => {
  const r = await rig();
  const limited = (await peerOn(r, { dataLimitGB: 1 })).peer;
  const sid = limited.serverID;
  const admin = (await r.api.post(`/api/servers/${sid}/peers`, { name: 'off', dataLimitGB: 1 })).json;
  r.k.counters.set(limited.publicKey, { rxBytes: GB, txBytes: 0, latestHandshake: 1 });
  r.k.counters.set(admin.publicKey, { rxBytes: 1000, txBytes: 0, latestHandshake: 1 });
  await resetIfNewMonth(r.d.daemon.app); // first run records the month, resets nothing
  await collectUsage(r.d.daemon.app);
  await r.api.put(`/api/peers/${admin.id}`, { enabled: false });
  assert.is((await usageOf(r, limited.id)).disabledReason, 'data_limit');
  assert.is(await resetIfNewMonth(r.d.daemon.app), false, 'same month: nothing to do');
  r.clock.now = new Date(2026, 11, 1, 0, 0, 5);
  assert.is(await resetIfNewMonth(r.d.daemon.app), true);
  const l = await usageOf(r, limited.id);
  const a = await usageOf(r, admin.id);
  assert.is(l.currentDataUsageBytes, 0);
  assert.is(l.enabled, true);
  assert.is(l.disabledReason, '');
  assert.is(a.currentDataUsageBytes, 0);
  assert.is(a.enabled, false);
  assert.is(a.disabledReason, 'admin');
  assert.is(r.k.applied.at(-1)!.after!.id, limited.id);
  assert.is(r.k.applied.at(-1)!.after!.enabled, true);
  assert.is(await resetIfNewMonth(r.d.daemon.app), false, 'once a month');
  await r.d.stop();
});

t('a clock that falls behind the usage month (no RTC before NTP) never resets usage', async () => {
  const r = await rig();
  const { peer } = await peerOn(r);
  r.k.counters.set(peer.publicKey, { rxBytes: 500, txBytes: 0, latestHandshake: 1 });
  await resetIfNewMonth(r.d.daemon.app);
  await collectUsage(r.d.daemon.app);
  r.clock.now = new Date(2024, 4, 1, 0, 0, 30);
  assert.is(await resetIfNewMonth(r.d.daemon.app), false);
  r.clock.now = new Date(2026, 10, 20, 8, 0, 0);
  assert.is(await resetIfNewMonth(r.d.daemon.app), false, 'back in the stored month: still nothing');
  assert.is((await usageOf(r, peer.id)).currentDataUsageBytes, 500);
  await r.d.stop();
});

t('a daemon that was down at midnight on the 1st resets at its next start', async () => {
  const dir = tempDir();
  let r = await rig(dir);
  const { peer } = await peerOn(r);
  r.k.counters.set(peer.publicKey, { rxBytes: 500, txBytes: 0, latestHandshake: 1 });
  await resetIfNewMonth(r.d.daemon.app);
  await collectUsage(r.d.daemon.app);
  await r.d.stop();
  r = await rig(dir, { now: new Date(2027, 0, 3, 9, 0, 0) });
  assert.is(await resetIfNewMonth(r.d.daemon.app), true);
  assert.is((await usageOf(r, peer.id)).currentDataUsageBytes, 0);
  await r.d.stop();
});

t('expiry deletes peers past expiresAt as a delete, then announces peerExpired', async () => {
  const r = await rig();
  const clock = r.clock;
  const { peer } = await peerOn(r, { expiresAt: new Date(clock.now.getTime() + 90_000).toISOString() });
  const keep = (await r.api.post(`/api/servers/${peer.serverID}/peers`, { name: 'forever' })).json;
  assert.equal(await expirePeers(r.d.daemon.app), []);
  clock.now = new Date(clock.now.getTime() + 60_000);
  assert.equal(await expirePeers(r.d.daemon.app), []);
  clock.now = new Date(clock.now.getTime() + 60_000);
  assert.equal(await expirePeers(r.d.daemon.app), [peer.id]);
  assert.is((await r.api.get(`/api/peers/${peer.id}`)).status, 404);
  assert.is((await r.api.get(`/api/peers/${keep.id}`)).status, 200);
  assert.is(r.k.applied.at(-1)!.before!.id, peer.id);
  assert.is(r.k.applied.at(-1)!.after, null);
  const names = r.events.map((e) => e.event).filter((n) => n === 'peerDeleted' || n === 'peerExpired');
  assert.equal(names, ['peerDeleted', 'peerExpired']);
  await r.d.stop();
});

t('the schedule collects on its own every WGCP_USAGE_INTERVAL_S seconds', async () => {
  const k = countingKernel();
  const d = await startTestDaemon({ options: { kernel: k.kernel }, env: { WGCP_USAGE_INTERVAL_S: '1' } });
  const api = client(d);
  const sid = (await api.post('/api/servers', { name: 's', endpoint: 'vpn.example.com:51820', mode: 'forward' })).json.id;
  const peer = (await api.post(`/api/servers/${sid}/peers`, {})).json;
  k.counters.set(peer.publicKey, { rxBytes: 64, txBytes: 64, latestHandshake: 1 });
  const deadline = Date.now() + 5000;
  while ((await api.get(`/api/peers/${peer.id}`)).json.currentDataUsageBytes !== 128) {
    assert.ok(Date.now() < deadline, 'the one-second schedule collected');
    await new Promise((res) => setTimeout(res, 200));
  }
  await d.stop();
});

/** The last handshake the event stream's usage message tells the page. */
const handshakeOf = (d: TestDaemon, id: number) => d.daemon.app.store.usage.snapshot().find((p) => p.id === id)?.latestHandshake;

t('the last handshake is kept while a peer is off and after it is back on, until it handshakes again', async () => {
  const r = await rig();
  const { peer } = await peerOn(r);
  r.k.counters.set(peer.publicKey, { rxBytes: 10, txBytes: 10, latestHandshake: 1_700_000_000 });
  await collectUsage(r.d.daemon.app);
  assert.is(handshakeOf(r.d, peer.id), 1_700_000_000);
  assert.is((await r.api.put(`/api/peers/${peer.id}`, { enabled: false })).status, 200);
  assert.is(handshakeOf(r.d, peer.id), 1_700_000_000, 'kept while off');
  assert.is((await r.api.put(`/api/peers/${peer.id}`, { enabled: true })).status, 200);
  // Back on the interface, the kernel knows no handshake yet.
  r.k.counters.set(peer.publicKey, { rxBytes: 0, txBytes: 0, latestHandshake: 0 });
  await collectUsage(r.d.daemon.app);
  assert.is(handshakeOf(r.d, peer.id), 1_700_000_000, 'kept until a new one');
  r.k.counters.set(peer.publicKey, { rxBytes: 5, txBytes: 5, latestHandshake: 1_700_000_500 });
  await collectUsage(r.d.daemon.app);
  assert.is(handshakeOf(r.d, peer.id), 1_700_000_500);
  await r.d.stop();
});

t('a peer switched back on has its handshake read within seconds, not at the next cycle an hour away', async () => {
  const k = countingKernel();
  const d = await startTestDaemon({ env: { WGCP_USAGE_INTERVAL_S: '3600' }, options: { kernel: k.kernel } });
  const api = client(d);
  try {
    const sid = (await api.post('/api/servers', { name: 's', endpoint: 'vpn.example.com:51820', mode: 'forward' })).json.id;
    const peer = (await api.post(`/api/servers/${sid}/peers`, { name: 'p', enabled: false })).json;
    assert.is((await api.put(`/api/peers/${peer.id}`, { enabled: false })).status, 200);
    // The start's cycle has run; now the peer comes back and handshakes a moment later.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    assert.is((await api.put(`/api/peers/${peer.id}`, { enabled: true })).status, 200);
    k.counters.set(peer.publicKey, { rxBytes: 1, txBytes: 1, latestHandshake: 1_700_000_900 });
    await eventually('the handshake read', () => (handshakeOf(d, peer.id) === 1_700_000_900 ? true : undefined), 5000);
  } finally {
    await d.stop();
  }
});

t.run();
