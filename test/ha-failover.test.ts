// A standby pair fails over for real: two routers in namespaces, keepalived holding the
// virtual address, wireguard-go clients whose endpoint is that address, a LAN host behind
// both (test/helpers/ha-pair.ts). The primary dies (SIGKILL of wgcpd and keepalived, its WAN
// link down) while changes are being made on it; the standby takes the address, becomes
// primary and starts the handshakes itself; the old primary comes back as standby.
// The gap in the client's pings is printed, never asserted (bench/ha-failover.ts measures it).
import Database from 'better-sqlite3';
import path from 'node:path';
import * as assert from 'uvu/assert';
import { HaPair, LAN_HOST, VIRTUAL_ADDRESS, type HaClient, type RouterName } from './helpers/ha-pair';
import type { NsDaemon } from './helpers/ns-daemon';
import { PingLog } from './helpers/ping-log';
import { suiteNeeding } from './helpers/root';

const t = suiteNeeding('ha: failover of a standby pair under keepalived', ['ip', 'nft', 'wg', 'wireguard-go', 'keepalived', 'ping'], { root: true });

const PEERS = 20;
const w = {} as {
  pair: HaPair; serverId: number; peers: Array<{ id: number; name: string; publicKey: string }>;
  pinger: HaClient; idle: HaClient[]; ping: PingLog; killedAt: number; acknowledged: string[]; refused: number;
};

const daemon = (name: RouterName): NsDaemon => w.pair.routers[name].daemon!;
const ha = async (name: RouterName) => (await daemon(name).api('GET', '/api/ha')).json as { role: string; epoch: number; sequence: number; partner: { connected: boolean; behind: number } };

/** What each router says of itself, and the end of its daemon's log: the message of a wait that never ended. */
async function diagnosis(): Promise<string> {
  const lines: string[] = [];
  for (const name of ['a', 'b'] as const) {
    const d = w.pair.routers[name].daemon;
    lines.push(`${name}: ${d ? (await d.api('GET', '/api/ha').catch((e) => ({ text: String(e) }))).text : 'down'}`);
    lines.push(...(d?.output() ?? '').trim().split('\n').slice(-15).map((l) => `  ${name}| ${l}`));
    lines.push(...w.pair.routers[name].notifies().map((n) => `  ${name} notify: ${n}`));
  }
  return lines.join('\n');
}

/** Waits until `ok`; two minutes without it is a failure (a stuck pair), not a slow machine. */
async function until(what: string, ok: () => boolean | Promise<boolean>): Promise<void> {
  const giveUp = Date.now() + 120_000;
  while (!(await ok())) {
    if (Date.now() > giveUp) assert.unreachable(`never: ${what}\n${await diagnosis()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Rows of a router's own database, read beside the running daemon (WAL: a reader never blocks it). */
function count(name: RouterName, sql: string): number {
  const db = new Database(path.join(w.pair.routers[name].dataDir, 'wgcp.db'), { readonly: true, fileMustExist: true });
  try { return (db.prepare(sql).get() as { n: number }).n; } finally { db.close(); }
}

/** Makes a client handshake once by itself (a keepalive on, then off): the primary learns its endpoint. */
async function handshakeOnce(c: HaClient, serverKey: string): Promise<void> {
  w.pair.client.exec('wg', ['set', c.ifname, 'peer', serverKey, 'persistent-keepalive', '1']);
  await until('the client handshakes with the primary', () => w.pair.clientPeer(c).handshake > 0);
  w.pair.client.exec('wg', ['set', c.ifname, 'peer', serverKey, 'persistent-keepalive', '0']);
}

t.before(async () => {
  w.pair = new HaPair();
  const env = { WGCP_USAGE_INTERVAL_S: '1' };
  await Promise.all([w.pair.startDaemon('a', env), w.pair.startDaemon('b', env)]);
  w.pair.startKeepalived('a');
  await w.pair.waitForHolder('a');
  await until('a is primary', async () => (await ha('a')).role === 'primary');
  w.pair.startKeepalived('b');
  const server = await daemon('a').api('POST', '/api/servers', { name: 'office', endpoint: `${VIRTUAL_ADDRESS}:51820`, mode: 'forward', address: '10.77.0.1/24' });
  assert.is(server.status, 201, server.text);
  w.serverId = server.json.id;
  w.peers = [];
  for (let i = 0; i < PEERS; i++) {
    const p = await daemon('a').api('POST', `/api/servers/${w.serverId}/peers`, { name: `p${i}`, allowInternet: true, lanAccess: 'lan' });
    assert.is(p.status, 201, p.text);
    w.peers.push(p.json);
  }
  const conf = async (i: number) => (await daemon('a').api('GET', `/api/peers/${w.peers[i].id}/config`)).text.replace(/^PersistentKeepalive = .*\n/m, '');
  // One client pings the LAN host through the tunnel; two others only handshake once.
  w.pinger = await w.pair.addClient(await conf(0), ['10.1.0.0/24']);
  w.idle = [await w.pair.addClient(await conf(1)), await w.pair.addClient(await conf(2))];
  w.ping = new PingLog(w.pair.client, LAN_HOST, 0.05);
  for (const c of w.idle) await handshakeOnce(c, server.json.publicKey);
  await until('the LAN host answers the client', () => w.ping.replies.length > 0);
  // The standby holds every peer and the endpoints the primary saw (sent with the usage cycle).
  await until('b follows a with every change', async () => {
    const [a, b] = await Promise.all([ha('a'), ha('b')]);
    return b.role === 'standby' && a.partner.connected && a.sequence === b.sequence;
  });
  await until('b holds the endpoints of the three clients', () => count('b', 'SELECT count(*) AS n FROM peer_endpoints') >= 3);
  for (const c of w.idle) {
    w.pair.makePassive(c);
    assert.equal(w.pair.clientPeer(c), { endpoint: '(none)', handshake: 0 });
  }
});

t.after(() => {
  w.ping?.stop();
  w.pair?.destroy();
});

t('the standby refuses writes with 409 and names the primary, before any failover', async () => {
  const r = await daemon('b').api('POST', `/api/servers/${w.serverId}/peers`, { name: 'refused' });
  assert.is(r.status, 409, r.text);
  assert.is(r.json.code, 'WGCP_HA_STANDBY');
});

t('the primary dies while changes are made on it; the standby takes the address and becomes primary', async () => {
  w.acknowledged = [];
  w.refused = 0;
  const a = daemon('a');
  let killed = false;
  // Changes one after another until the primary stops answering; each answered one is noted.
  const writer = (async () => {
    for (let i = 0; ; i++) {
      try {
        const r = await a.api('POST', `/api/servers/${w.serverId}/peers`, { name: `w${i}` });
        // Status 0: no answer (the primary is gone, or died under the request).
        if (r.status === 201) w.acknowledged.push(`w${i}`); else if (r.status !== 0) w.refused++;
        if (killed) return;
      } catch {
        if (killed) return;
      }
    }
  })();
  try {
    await until('a few changes answered', () => w.acknowledged.length >= 5);
  } finally {
    w.killedAt = Date.now();
    w.pair.kill('a');
    killed = true;
    await writer;
  }
  await w.pair.waitForHolder('b');
  await until('b is primary', async () => (await ha('b')).role === 'primary');
  assert.ok(w.pair.routers.b.notifies().some((n) => / MASTER \d+$/.test(n)), 'keepalived told wgcp through the notify script');
});

t('the client pinging the LAN host through the tunnel gets answers again, through the new primary', async () => {
  await until('a reply after the kill', () => w.ping.after(w.killedAt + 500) > 0);
  console.log(`  the longest gap in the pings (every 50 ms): ${w.ping.longestGap(w.killedAt - 1000)} ms`);
  assert.is(w.pair.clientPeer(w.pinger).endpoint, `${VIRTUAL_ADDRESS}:51820`);
});

t('the new primary woke the idle clients itself: each has a session with it, and the virtual address as endpoint again', async () => {
  // The idle clients forgot the endpoint after their one handshake: only a handshake the
  // router starts can give them a session and an endpoint, the address it came from.
  await until('both idle clients hold a session with b', () => w.idle.every((c) => w.pair.clientPeer(c).handshake > 0));
  for (const c of w.idle) assert.is(w.pair.clientPeer(c).endpoint, `${VIRTUAL_ADDRESS}:51820`, 'the handshake came from the virtual address');
  const keepalives = daemon('b').exec('wg', ['show', 'wgcp1', 'persistent-keepalive']);
  assert.not.match(keepalives, /\t(?!off$)\S+$/m, 'no keepalive left on');
});

t('every change the primary answered before it died is on the new primary', async () => {
  console.log(`  changes answered before the kill: ${w.acknowledged.length} (refused: ${w.refused})`);
  assert.is(w.refused, 0, 'the primary refused none of them');
  const list = await daemon('b').api('GET', `/api/servers/${w.serverId}/peers`);
  assert.is(list.status, 200, list.text);
  const names = new Set((list.json as Array<{ name: string }>).map((p) => p.name));
  for (const name of w.acknowledged) assert.ok(names.has(name), `${name} was answered by the old primary`);
  const r = await daemon('b').api('POST', `/api/servers/${w.serverId}/peers`, { name: 'after' });
  assert.is(r.status, 201, r.text);
});

t('the old primary returns as standby, catches up, and never answers a write', async () => {
  await w.pair.revive('a', { WGCP_USAGE_INTERVAL_S: '1' });
  await until('a follows b again', async () => {
    const [a, b] = await Promise.all([ha('a'), ha('b')]);
    return a.role === 'standby' && b.partner.connected && a.sequence === b.sequence && a.epoch === b.epoch;
  });
  assert.is(w.pair.holder(), 'b', 'nopreempt: the address stays with the new primary');
  const names = ((await daemon('a').api('GET', `/api/servers/${w.serverId}/peers`)).json as Array<{ name: string }>).map((p) => p.name);
  assert.ok(names.includes('after'), 'it holds the change made while it was dead');
  const r = await daemon('a').api('POST', `/api/servers/${w.serverId}/peers`, { name: 'refused-again' });
  assert.is(r.status, 409, r.text);
  assert.is(r.json.code, 'WGCP_HA_STANDBY');
});

t.run();
