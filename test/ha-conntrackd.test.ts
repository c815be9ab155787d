// conntrackd beside the standby pair (docs/ha.md): a TCP connection from a client, through its
// tunnel, to a host on the WAN, masqueraded by the primary to the virtual address, goes on
// through the new primary after the old one dies. The pair of test/helpers/ha-pair.ts (real
// keepalived, real wireguard-go), conntrackd in each router namespace syncing over the sync
// link in FTFW mode (the shipped example), keepalived's notify calling conntrackd's own
// primary-backup.sh. The far host pushes a line every 100 ms and the client only reads: the
// first packet after the failover comes from the far side, which the new primary can only
// take for the connection it was if it holds the translation (without it, the packet is
// for the router's own address and port: answered with a reset).
import crypto from 'node:crypto';
import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import * as assert from 'uvu/assert';
import { HaPair, VIRTUAL_ADDRESS, type RouterName } from './helpers/ha-pair';
import { externalCache, startConntrackd } from './helpers/conntrackd';
import { Netns, sh } from './helpers/netns';
import type { NsDaemon } from './helpers/ns-daemon';
import { suiteNeeding } from './helpers/root';

const t = suiteNeeding('ha: conntrackd carries masqueraded connections over a failover', ['ip', 'nft', 'wg', 'wireguard-go', 'keepalived', 'conntrackd'], { root: true });

// The internet beyond the WAN: a gateway on the WAN's wire, the far host behind it.
const GATEWAY = '192.0.2.1';
const FAR_HOST = '203.0.113.9';
const FAR_PORT = 7007;
// The far host: every connection gets a numbered line every 100 ms.
const PUSHER = `require('net').createServer((s) => { let n = 0; const t = setInterval(() => s.write(++n + '\\n'), 100); s.on('error', () => {}); s.on('close', () => clearInterval(t)); }).listen(${FAR_PORT}, '${FAR_HOST}');`;
// The client: one connection, each line it reads and its end, one JSON line each.
const READER = `const s = require('net').connect(${FAR_PORT}, '${FAR_HOST}'); let buf = '';
s.on('data', (d) => { buf += d; const lines = buf.split('\\n'); buf = lines.pop(); for (const l of lines) console.log(JSON.stringify({ n: Number(l), at: Date.now() })); });
s.on('error', (e) => console.log(JSON.stringify({ error: e.code || e.message, at: Date.now() })));
s.on('close', () => console.log(JSON.stringify({ closed: true, at: Date.now() })));`;

const SNAT_TO_VIRTUAL = `table ip wgcp_ha_snat {
  chain postrouting {
    type nat hook postrouting priority srcnat - 1; policy accept;
    oifname "wan" ip saddr 10.78.0.0/24 snat to ${VIRTUAL_ADDRESS}
  }
}
`;

const w = {} as { pair: HaPair; far: Netns; reader: ChildProcess; lines: { n?: number; error?: string; closed?: boolean; at: number }[] };
const daemon = (name: RouterName): NsDaemon => w.pair.routers[name].daemon!;
/** The peer endpoints a router holds (the new primary's wake-up reads them), read beside its daemon. */
function endpoints(name: RouterName): number {
  const db = new Database(path.join(w.pair.routers[name].dataDir, 'wgcp.db'), { readonly: true });
  try { return db.prepare('SELECT count(*) FROM peer_endpoints').pluck().get() as number; } finally { db.close(); }
}
const ha = async (name: RouterName) => (await daemon(name).api('GET', '/api/ha')).json as { role: string; sequence: number; partner: { connected: boolean } };

/** The client's tunnel and each router's tracked connections: the message of a wait that never ended. */
function diagnosis(): string {
  const tryExec = (f: () => string) => { try { return f(); } catch (err) { return String(err); } };
  return [
    tryExec(() => w.pair.client.exec('wg', ['show'])),
    tryExec(() => w.pair.client.exec('ip', ['route'])),
    ...(['a', 'b'] as const).map((n) => `${n}: ${tryExec(() => w.pair.routers[n].ns.exec('conntrack', ['-L']))}`),
    tryExec(() => w.pair.routers.a.ns.exec('ip', ['route'])),
  ].join('\n');
}

async function until(what: string, ok: () => boolean | Promise<boolean>): Promise<void> {
  const giveUp = Date.now() + 120_000;
  while (!(await ok())) {
    if (Date.now() > giveUp) assert.unreachable(`never: ${what}\n${w.lines.slice(-5).map((l) => JSON.stringify(l)).join('\n')}\n${diagnosis()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

t.before(async () => {
  w.pair = new HaPair();
  w.lines = [];
  // The far host (and the internet's gateway) on the WAN's wire.
  w.far = new Netns('far');
  const port = `f${crypto.randomBytes(4).toString('hex')}`;
  sh('ip', ['link', 'add', 'wan', 'netns', w.far.name, 'type', 'veth', 'peer', 'name', port, 'netns', w.pair.wan.name]);
  w.pair.wan.exec('ip', ['link', 'set', port, 'master', 'bridge0', 'up']);
  w.far.exec('ip', ['address', 'add', `${GATEWAY}/24`, 'dev', 'wan']);
  w.far.exec('ip', ['address', 'add', `${FAR_HOST}/32`, 'dev', 'wan']);
  w.far.exec('ip', ['link', 'set', 'wan', 'up']);
  // The primary's default route, as in the shipped keepalived example: through the gateway,
  // from the virtual address (what masquerade translates to, on whichever router is primary).
  for (const r of Object.values(w.pair.routers)) {
    const file = path.join(r.dir, 'keepalived.conf');
    const conf = fs.readFileSync(file, 'utf8');
    const routes = conf.replace(/^(\s*virtual_routes \{\n)/m, `$1    0.0.0.0/0 via ${GATEWAY} dev wan src ${VIRTUAL_ADDRESS} metric 10\n`);
    assert.ok(routes !== conf, 'the keepalived configuration has virtual_routes');
    fs.writeFileSync(file, routes);
    // masquerade takes the WAN interface's first address (the router's own, which dies with
    // it): what leaves for the internet is translated to the virtual address instead, before
    // wgcp's masquerade (docs/ha.md, the rule the docs give).
    r.ns.exec('nft', ['-f', '-'], SNAT_TO_VIRTUAL);
  }
  w.far.spawn(process.execPath, ['-e', PUSHER]);
  startConntrackd(w.pair);
  const env = { WGCP_USAGE_INTERVAL_S: '1' };
  await Promise.all([w.pair.startDaemon('a', env), w.pair.startDaemon('b', env)]);
  w.pair.startKeepalived('a');
  await w.pair.waitForHolder('a');
  await until('a is primary', async () => (await ha('a')).role === 'primary');
  w.pair.startKeepalived('b');
  const server = await daemon('a').api('POST', '/api/servers', { name: 'office', endpoint: `${VIRTUAL_ADDRESS}:51820`, mode: 'forward', address: '10.78.0.1/24' });
  assert.is(server.status, 201, server.text);
  const peer = await daemon('a').api('POST', `/api/servers/${server.json.id}/peers`, { name: 'laptop', allowInternet: true });
  assert.is(peer.status, 201, peer.text);
  const conf = (await daemon('a').api('GET', `/api/peers/${peer.json.id}/config`)).text.replace(/^PersistentKeepalive = .*\n/m, '');
  await w.pair.addClient(conf, [`${FAR_HOST}/32`]);
  w.reader = w.pair.client.spawn(process.execPath, ['-e', READER]);
  w.reader.stdout!.on('data', (d: Buffer) => { for (const l of d.toString().split('\n').filter(Boolean)) w.lines.push(JSON.parse(l)); });
  await until('the client reads the far host\'s lines', () => w.lines.some((l) => l.n !== undefined));
  await until('b follows a and holds the client\'s endpoint', async () => {
    const [a, b] = await Promise.all([ha('a'), ha('b')]);
    return b.role === 'standby' && a.partner.connected && a.sequence === b.sequence && endpoints('b') > 0;
  });
});

t.after(() => {
  w.pair?.destroy();
  w.far?.destroy();
});

t('the primary masquerades the connection to the virtual address, and the standby\'s conntrackd holds it', async () => {
  const tracked = w.pair.routers.a.ns.exec('conntrack', ['-L', '-p', 'tcp', '--dport', String(FAR_PORT)]);
  assert.ok(tracked.includes(`src=${FAR_HOST} dst=${VIRTUAL_ADDRESS}`), tracked);
  await until('b\'s conntrackd holds the connection from a', () => externalCache(w.pair, 'b').includes(`dst=${FAR_HOST}`));
});

t('after the primary dies the connection goes on through the new primary: no reset, no line lost', async () => {
  const killedAt = Date.now();
  w.pair.kill('a');
  await w.pair.waitForHolder('b');
  await until('b is primary', async () => (await ha('b')).role === 'primary');
  await until('the client reads lines again', () => w.lines.some((l) => l.n !== undefined && l.at > killedAt + 500));
  const after = Date.now();
  await until('a few seconds of lines after', () => Date.now() > after + 3000);
  const ended = w.lines.filter((l) => l.error || l.closed);
  assert.equal(ended, [], 'the connection was never reset nor closed');
  const numbers = w.lines.filter((l) => l.n !== undefined).map((l) => l.n!);
  assert.equal(numbers, numbers.map((_, i) => i + 1), 'every line, in order, on the one connection');
  assert.match(w.pair.routers.b.ns.exec('conntrack', ['-L', '-p', 'tcp', '--dport', String(FAR_PORT)]), `dst=${VIRTUAL_ADDRESS}`);
  const gap = Math.max(...w.lines.slice(1).map((l, i) => l.at - w.lines[i].at));
  console.log(`  longest gap between two lines: ${(gap / 1000).toFixed(2)} s`);
});

t.run();
