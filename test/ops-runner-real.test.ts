// The change runner against the real kernel: a daemon in its own namespace with nft and
// wireguard-go. A stopped tool never holds the daemon: reads, heartbeats and health answer
// while a change waits, the change fails cleanly once the tool's bound has passed, and the
// kernel ends holding exactly what the database does.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { suiteNeeding } from './helpers/root';
import * as assert from 'uvu/assert';
import { Netns } from './helpers/netns';
import { startNsDaemon, type NsAnswer, type NsDaemon } from './helpers/ns-daemon';
import { kernelState, wireguardGoPid } from './helpers/kernel-state';
import { eventually } from './helpers/receiver';

const t = suiteNeeding('change runner with the real kernel', ['ip', 'nft', 'wg', 'wireguard-go', 'nsenter', 'unshare'], { root: true });

const w = {} as { router: Netns; d: NsDaemon; serverId: number; ifname: string };

/** The `nft -i` session the daemon keeps, found among the namespace's processes. */
function nftSessionPid(d: NsDaemon): number | null {
  for (const pid of d.exec('ip', ['netns', 'pids', d.ns.name]).split(/\s+/).filter(Boolean)) {
    try {
      const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      if (cmd[0].endsWith('nft') && cmd[1] === '-i') return Number(pid);
    } catch { /* exited meanwhile */ }
  }
  return null;
}

/** Peers the database holds for the server, as `wg show` would list their keys. */
async function storedKeys(): Promise<string[]> {
  const peers = (await w.d.api('GET', `/api/servers/${w.serverId}/peers`)).json as { publicKey: string; enabled: boolean }[];
  return peers.filter((p) => p.enabled).map((p) => p.publicKey).sort();
}

const kernelKeys = (): string[] => w.d.exec('wg', ['show', w.ifname, 'peers']).trim().split('\n').filter(Boolean).sort();

/**
 * Starts a change, then asks for health, the server list and a heartbeat while it waits:
 * each must answer before the change does.
 */
async function whileWaiting(change: Promise<NsAnswer>): Promise<{ change: NsAnswer; answeredFirst: string[] }> {
  let done = false;
  const seen = w.d.output().split('a change is waiting for the kernel').length;
  const changed = change.finally(() => { done = true; });
  // The daemon's own word that the change is under way and stuck on the tool.
  await eventually('the change waits for the kernel', () => (w.d.output().split('a change is waiting for the kernel').length > seen ? true : undefined));
  const answeredFirst: string[] = [];
  const ask = async (what: string, p: Promise<NsAnswer>, status: number) => {
    const r = await p;
    assert.is(r.status, status, `${what}: ${r.text}`);
    if (!done) answeredFirst.push(what);
  };
  await ask('health', w.d.api('GET', '/healthz'), 200);
  await ask('servers', w.d.api('GET', '/api/servers?peers=none'), 200);
  // A well-formed id no device has: the heartbeat is read and answered, 404.
  await ask('heartbeat', w.d.api('POST', '/api/v1/heartbeat', { device_id: '0b0e64f7-4a36-4b11-9c3c-7f2e1d2f3a4b', status: 'ok' }), 404);
  return { change: await changed, answeredFirst };
}

t.before(async () => {
  w.router = new Netns('runner');
  // No usage cycle (its dump is the reconciler's look at peers): what puts peers right here is the sync after a killed `wg`.
  w.d = await startNsDaemon(w.router, { env: { WGCP_USAGE_INTERVAL_S: '86400' } });
  const s = await w.d.api('POST', '/api/servers', { name: 'held', endpoint: 'vpn.example.com:51820', mode: 'forward' });
  assert.is(s.status, 201, s.text);
  w.serverId = s.json.id;
  w.ifname = s.json.interface;
  assert.is((await w.d.api('POST', `/api/servers/${w.serverId}/peers`, { name: 'first' })).status, 201);
});

t.after(async () => {
  await w.d?.stop();
  w.router?.destroy();
});

t('while nft is stopped, reads answer; the change fails after its bound with nothing applied, and the next one works', async () => {
  const pid = nftSessionPid(w.d);
  assert.ok(pid, 'the daemon keeps an nft -i');
  const before = kernelState(w.d);
  process.kill(pid!, 'SIGSTOP');
  try {
    // With the internet, the new peer is an element of the table: the change needs nft.
    const { change, answeredFirst } = await whileWaiting(w.d.api('POST', `/api/servers/${w.serverId}/peers`, { name: 'stuck', allowInternet: true }));
    assert.equal(answeredFirst, ['health', 'servers', 'heartbeat']);
    assert.is(change.status, 500);
    assert.match(change.json.error, /nft did not answer within \d+ s and was killed/);
  } finally {
    try { process.kill(pid!, 'SIGCONT'); } catch { /* killed by the daemon */ }
  }
  assert.is((await storedKeys()).length, 1, 'nothing stored');
  assert.is(kernelState(w.d), before, 'the kernel holds what it held');
  const next = await w.d.api('POST', `/api/servers/${w.serverId}/peers`, { name: 'after' });
  assert.is(next.status, 201, next.text);
  assert.equal(kernelKeys(), await storedKeys());
});

t('while wireguard-go is stopped, the change fails cleanly; once it wakes the kernel holds exactly the database\'s peers', async () => {
  const pid = wireguardGoPid(w.d, w.ifname);
  assert.ok(pid, 'wireguard-go serves the interface');
  const stored = await storedKeys();
  process.kill(pid!, 'SIGSTOP');
  let resumed = false;
  try {
    const { change, answeredFirst } = await whileWaiting(w.d.api('POST', `/api/servers/${w.serverId}/peers`, { name: 'asleep' }));
    assert.equal(answeredFirst, ['health', 'servers', 'heartbeat']);
    assert.is(change.status, 500);
    assert.match(change.json.error, /wg set did not answer within \d+ s and was killed/);
    assert.equal(await storedKeys(), stored, 'nothing stored');
    process.kill(pid!, 'SIGCONT');
    resumed = true;
    // The set it was given up on, and its undo, were both queued in wireguard-go's socket.
    await eventually('the kernel back to the database\'s peers', () => (JSON.stringify(kernelKeys()) === JSON.stringify(stored) ? true : undefined), 40_000);
  } finally {
    if (!resumed) process.kill(pid!, 'SIGCONT');
  }
  const next = await w.d.api('POST', `/api/servers/${w.serverId}/peers`, { name: 'awake' });
  assert.is(next.status, 201, next.text);
  assert.equal(kernelKeys(), await storedKeys());
});

t('a peer put in by hand while wireguard-go is stopped is gone once it wakes: the sync after the killed wg cannot read the interface, says so, and tries again', async () => {
  const pid = wireguardGoPid(w.d, w.ifname);
  assert.ok(pid, 'wireguard-go serves the interface');
  const stored = await storedKeys();
  const foreign = w.d.exec('wg', ['genkey']).trim();
  const foreignPub = w.d.exec('sh', ['-c', `echo ${foreign} | wg pubkey`]).trim();
  process.kill(pid!, 'SIGSTOP');
  let resumed = false;
  // Queued in wireguard-go's socket while it sleeps; applied when it wakes.
  const byHand = spawn('nsenter', ['--target', String(w.d.pid), '--mount', '--net', 'wg', 'set', w.ifname, 'peer', foreignPub, 'allowed-ips', '10.250.0.9/32'], { stdio: 'ignore' });
  try {
    const seen = w.d.output().split('a sync after a killed tool could not put the peers right yet').length;
    const { change } = await whileWaiting(w.d.api('POST', `/api/servers/${w.serverId}/peers`, { name: 'unread' }));
    assert.is(change.status, 500);
    await eventually('the sync after the killed wg found the peers unreadable', () => (w.d.output().split('a sync after a killed tool could not put the peers right yet').length > seen ? true : undefined), 40_000);
    process.kill(pid!, 'SIGCONT');
    resumed = true;
    await eventually('the kernel back to the database\'s peers', () => (JSON.stringify(kernelKeys()) === JSON.stringify(stored) ? true : undefined), 40_000);
  } finally {
    if (!resumed) process.kill(pid!, 'SIGCONT');
    byHand.kill();
  }
});

t.run();
