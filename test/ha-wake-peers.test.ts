// The wake-up a new primary sends its peers (src/ha/wake-peers.ts), on real wireguard-go: a
// "router" namespace holds a server interface that knows its peers but has no session, the
// clients' namespace holds wireguard-go clients that send nothing; after the wake-up each
// client has a handshake with the router, and the router's peers hold no keepalive.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import * as assert from 'uvu/assert';
import { wakeCommands, wakePeers, type WakeTarget } from '../src/ha/wake-peers';
import { generateKeyPair } from '../src/wg/keys';
import { tempDir } from './helpers/daemon';
import { linkNamespaces, Netns } from './helpers/netns';
import { suiteNeeding } from './helpers/root';

const t = suiteNeeding('ha: the wake-up of peers on promotion', ['ip', 'wg', 'wireguard-go'], { root: true });
const runAsync = promisify(execFile);

interface Side { ns: Netns; ifname: string; key: { privateKey: string; publicKey: string } }
const w = { children: [] as ChildProcess[] } as { router: Side; clients: Side[]; children: ChildProcess[] };

async function wireguardGo(ns: Netns, privateKey: string, listenPort: number): Promise<string> {
  const ifname = `wgw${crypto.randomBytes(3).toString('hex')}`;
  w.children.push(spawn('ip', ['netns', 'exec', ns.name, 'wireguard-go', '-f', ifname], { env: { ...process.env, WG_PROCESS_FOREGROUND: '1' }, stdio: 'ignore' }));
  while (!fs.existsSync(`/run/wireguard/${ifname}.sock`)) await new Promise((r) => setTimeout(r, 20));
  const file = path.join(tempDir('wgcp-wake-'), 'key');
  fs.writeFileSync(file, privateKey, { mode: 0o600 });
  ns.exec('wg', ['set', ifname, 'private-key', file, 'listen-port', String(listenPort)]);
  ns.exec('ip', ['link', 'set', ifname, 'up']);
  return ifname;
}

/** Each dump line of an interface's peers: key, endpoint, latest handshake, keepalive. */
function peers(s: Side): Array<{ key: string; endpoint: string; handshake: number; keepalive: string }> {
  return s.ns.exec('wg', ['show', s.ifname, 'dump']).trim().split('\n').slice(1).map((l) => {
    const f = l.split('\t');
    return { key: f[0], endpoint: f[2], handshake: Number(f[4]), keepalive: f[7] };
  });
}

/** Waits until `ok`; a minute without it (a handshake is retried every 5 s) is a failure, not a slow machine. */
async function until(what: string, ok: () => boolean): Promise<void> {
  const giveUp = Date.now() + 60_000;
  while (!ok()) {
    if (Date.now() > giveUp) assert.unreachable(`never: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const inRouter = (tool: string, args: string[]) => runAsync('ip', ['netns', 'exec', w.router.ns.name, tool, ...args]);

t.before(async () => {
  const router = new Netns('wake-r');
  const clientNs = new Netns('wake-c');
  linkNamespaces(router, '192.0.2.1/24', clientNs, '192.0.2.2/24');
  const routerKey = generateKeyPair();
  w.router = { ns: router, key: routerKey, ifname: await wireguardGo(router, routerKey.privateKey, 51820) };
  w.clients = [];
  for (let i = 0; i < 3; i++) {
    const key = generateKeyPair();
    const ifname = await wireguardGo(clientNs, key.privateKey, 40000 + i);
    // The client knows the router's endpoint but sends nothing: no keepalive, no traffic.
    clientNs.exec('wg', ['set', ifname, 'peer', routerKey.publicKey, 'endpoint', '192.0.2.1:51820', 'allowed-ips', '10.9.0.1/32']);
    // The router holds the peer as wgcp does: allowed IPs, no endpoint, no keepalive.
    router.exec('wg', ['set', w.router.ifname, 'peer', key.publicKey, 'allowed-ips', `10.9.0.${10 + i}/32`]);
    w.clients.push({ ns: clientNs, key, ifname });
  }
});

t.after(() => {
  for (const c of w.children) if (c.exitCode === null) c.kill('SIGKILL');
  w.router?.ns.destroy();
  w.clients?.[0]?.ns.destroy();
});

t('one `wg set` per interface wakes every peer, and one more restores the keepalive, whatever their number', () => {
  const targets: WakeTarget[] = [
    { ifname: 'wgcp1', publicKey: 'A'.repeat(43) + '=', endpoint: '198.51.100.7:4500' },
    { ifname: 'wgcp1', publicKey: 'B'.repeat(43) + '=', endpoint: '[2001:db8::7]:51000' },
    { ifname: 'wgcp2', publicKey: 'C'.repeat(43) + '=', endpoint: '203.0.113.5:1' },
    { ifname: 'wgcp2', publicKey: 'D'.repeat(43) + '=', endpoint: 'host.example:51820' },
  ];
  const commands = wakeCommands(targets);
  assert.equal(commands.map((c) => [c.ifname, c.peers]), [['wgcp1', 2], ['wgcp2', 1]], 'an endpoint that is not an address is left out (wg would resolve it)');
  assert.equal(commands[0].wake, ['set', 'wgcp1', 'peer', 'A'.repeat(43) + '=', 'endpoint', '198.51.100.7:4500', 'persistent-keepalive', '1',
    'peer', 'B'.repeat(43) + '=', 'endpoint', '[2001:db8::7]:51000', 'persistent-keepalive', '1']);
  assert.equal(commands[1].restore, ['set', 'wgcp2', 'peer', 'C'.repeat(43) + '=', 'persistent-keepalive', '0']);
});

t('before the wake-up, no client has a handshake (they send nothing)', () => {
  for (const c of w.clients) assert.is(peers(c)[0].handshake, 0);
  for (const p of peers(w.router)) assert.is(p.handshake, 0);
});

t('after it, each client woken has a handshake with the router without sending anything; one left out has none', async () => {
  const woken = w.clients.slice(0, 2);
  const targets = woken.map((c, i) => ({ ifname: w.router.ifname, publicKey: c.key.publicKey, endpoint: `192.0.2.2:${40000 + i}` }));
  const calls: string[][] = [];
  const result = await wakePeers(targets, (tool, args) => { calls.push(args); return inRouter(tool, args); });
  assert.equal(result, { interfaces: 1, peers: 2, failed: [] });
  assert.is(calls.length, 2, 'two tool runs for the interface: wake, then restore');
  await until('both woken clients handshake', () => woken.every((c) => peers(c)[0].handshake > 0));
  for (const c of woken) assert.is(peers(c)[0].endpoint, '192.0.2.1:51820', 'the client keeps the router as its endpoint');
  const held = new Map(peers(w.router).map((p) => [p.key, p]));
  for (const c of woken) assert.ok(held.get(c.key.publicKey)!.handshake > 0, 'the router holds the session');
  assert.is(peers(w.clients[2])[0].handshake, 0, 'the client not woken has none');
});

t('the router holds its peers without a keepalive afterwards, as wgcp does', () => {
  for (const p of peers(w.router)) assert.is(p.keepalive, 'off');
});

t('a failed wake-up is reported with its interface, and the restore still runs', async () => {
  const result = await wakePeers([{ ifname: 'wgcpnone0', publicKey: w.clients[2].key.publicKey, endpoint: '192.0.2.2:40002' }], inRouter);
  assert.is(result.peers, 0);
  assert.is(result.failed.length, 2, JSON.stringify(result.failed));
  assert.match(result.failed[0], /^wgcpnone0: /);
});

t.run();
