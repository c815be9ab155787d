import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { client, startTestDaemon, tempDir } from './helpers/daemon';
import { countingKernel } from './helpers/counting-kernel';
import { planUsageCycle } from '../src/jobs/usage-delta';
import { collectUsage } from '../src/jobs/usage';
import type { PeerCounters } from '../src/kernel/plane';

const t = suite('usage counters are read without holding the daemon, and what changes meanwhile is not miscounted');

/** A counting kernel whose reads wait until the test lets each one go. */
function gatedKernel() {
  const k = countingKernel();
  const waiting: (() => void)[] = [];
  let reads = 0;
  k.kernel.peerCounters = () => {
    reads++;
    // The counters as they are when the test lets the read finish.
    return new Promise((resolve) => waiting.push(() => resolve(new Map<string, PeerCounters>(k.counters))));
  };
  const until = async (what: string, ok: () => boolean) => {
    const deadline = Date.now() + 5000;
    while (!ok()) {
      assert.ok(Date.now() < deadline, what);
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  return {
    ...k,
    get reads() { return reads; },
    /** Lets the oldest read under way finish (waits for one to start). */
    async release() {
      await until('a counter read is under way', () => waiting.length > 0);
      waiting.shift()!();
    },
    until,
  };
}

/**
 * Resolves once a stopping daemon has gone past its first step (the listener refuses
 * connections) and the event loop has turned often enough for a stop that did not wait for
 * the jobs to have finished every later step (none of them waits on anything outside).
 */
async function stopReachedTheJobs(url: string): Promise<void> {
  for (;;) {
    const refused = await fetch(`${url}/healthz`).then(() => false, () => true);
    if (refused) break;
    await new Promise((r) => setImmediate(r));
  }
  for (let i = 0; i < 50; i++) await new Promise((r) => setImmediate(r));
}

const serverBody = { name: 's', endpoint: 'vpn.example.com:51820', mode: 'forward' };

t('the plan leaves out peers that are off and peers whose baseline was forgotten during the read', () => {
  const seen = { publicKey: 'A', rxBytes: 10, txBytes: 10, latestHandshake: 1 };
  const peers = [
    { id: 1, serverId: 1, publicKey: 'A', enabled: true, baseline: seen },
    { id: 2, serverId: 1, publicKey: 'B', enabled: false, baseline: null },
    { id: 3, serverId: 1, publicKey: 'C', enabled: true, baseline: null },
  ];
  const now = new Map([['A', { rxBytes: 30, txBytes: 10, latestHandshake: 2 }], ['B', { rxBytes: 99, txBytes: 0, latestHandshake: 2 }], ['C', { rxBytes: 5, txBytes: 0, latestHandshake: 2 }]]);
  const plan = planUsageCycle(peers, new Map([[1, now]]), new Set([3]));
  assert.equal(plan.traffic, [[1, 1, 20, 0]]);
  assert.equal(plan.baselines.map((b) => b[0]), [1]);
});

t('the daemon answers requests while a cycle waits for its counters', async () => {
  const k = gatedKernel();
  const d = await startTestDaemon({ options: { kernel: k.kernel, events: { schedule: false } } });
  const api = client(d);
  const sid = (await api.post('/api/servers', serverBody)).json.id;
  const peer = (await api.post(`/api/servers/${sid}/peers`, {})).json;
  k.counters.set(peer.publicKey, { rxBytes: 700, txBytes: 0, latestHandshake: 1 });
  const cycle = collectUsage(d.daemon.app);
  await k.until('the read started', () => k.reads === 1);
  assert.is((await api.get('/api/stats')).status, 200, 'a request is served during the read');
  assert.is((await api.get(`/api/peers/${peer.id}`)).json.currentDataUsageBytes, 0, 'nothing is counted before the counters arrive');
  await k.release();
  await cycle;
  assert.is((await api.get(`/api/peers/${peer.id}`)).json.currentDataUsageBytes, 700);
  await d.stop();
});

t('a peer switched off and on again while its counters are read is not counted twice', async () => {
  const k = gatedKernel();
  const d = await startTestDaemon({ options: { kernel: k.kernel, events: { schedule: false } } });
  const api = client(d);
  const sid = (await api.post('/api/servers', serverBody)).json.id;
  const peer = (await api.post(`/api/servers/${sid}/peers`, {})).json;
  k.counters.set(peer.publicKey, { rxBytes: 1000, txBytes: 0, latestHandshake: 1 });
  const first = collectUsage(d.daemon.app);
  await k.release();
  await first;
  k.counters.set(peer.publicKey, { rxBytes: 1500, txBytes: 0, latestHandshake: 2 });
  const second = collectUsage(d.daemon.app);
  await k.until('the read started', () => k.reads === 2);
  // Off and on again: the interface starts its counters from zero, the baseline is forgotten.
  assert.is((await api.put(`/api/peers/${peer.id}`, { enabled: false })).status, 200);
  assert.is((await api.put(`/api/peers/${peer.id}`, { enabled: true })).status, 200);
  await k.release();
  await second;
  assert.is((await api.get(`/api/peers/${peer.id}`)).json.currentDataUsageBytes, 1000, 'the counters read before the switch are not counted again');
  k.counters.set(peer.publicKey, { rxBytes: 200, txBytes: 0, latestHandshake: 3 });
  const third = collectUsage(d.daemon.app);
  await k.release();
  await third;
  assert.is((await api.get(`/api/peers/${peer.id}`)).json.currentDataUsageBytes, 1200, 'what it moved since it came back is counted');
  await d.stop();
});

t('stopping waits for a read under way, then collects once more', async () => {
  const dir = tempDir();
  const k = gatedKernel();
  let d = await startTestDaemon({ dataDir: dir, options: { kernel: k.kernel, events: { schedule: false } } });
  let api = client(d);
  const sid = (await api.post('/api/servers', serverBody)).json.id;
  const peer = (await api.post(`/api/servers/${sid}/peers`, {})).json;
  await d.stop();
  k.counters.set(peer.publicKey, { rxBytes: 40, txBytes: 2, latestHandshake: 1 });
  // Scheduled: the start-up cycle reads at once and waits at the gate.
  d = await startTestDaemon({ dataDir: dir, options: { kernel: k.kernel }, env: { WGCP_USAGE_INTERVAL_S: '3600' } });
  await k.until('the start-up read started', () => k.reads === 1);
  let stopped = false;
  const stopping = d.stop().then(() => { stopped = true; });
  await stopReachedTheJobs(d.url);
  assert.is(stopped, false, 'the stop waits for the read under way');
  await k.release();
  await k.until('the last collection read again', () => k.reads === 2);
  k.counters.set(peer.publicKey, { rxBytes: 50, txBytes: 2, latestHandshake: 2 });
  await k.release();
  await stopping;
  d = await startTestDaemon({ dataDir: dir, options: { kernel: k.kernel, events: { schedule: false } } });
  api = client(d);
  assert.is((await api.get(`/api/peers/${peer.id}`)).json.currentDataUsageBytes, 52, 'the last collection counted from the start-up one\'s baseline');
  await d.stop();
});

t.run();
