// Imports that go live: keys made by the real `wg`, configs in wg-quick syntax (checked by the
// real wg-quick) with both address families, imported into a wgcpd driving a router, and
// clients that run their original configs completing real handshakes through the imported
// servers: the wg-quick one through the CLI (the running daemon starts again on SIGHUP), a
// wg-easy v15 database through POST /api/import (applied inside its transaction).
import { execFileSync, execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import * as assert from 'uvu/assert';
import { suiteNeeding } from './helpers/root';
import { Netns } from './helpers/netns';
import { startNsDaemon, type NsDaemon } from './helpers/ns-daemon';
import { reachSoon, serveTcp, WgClient } from './helpers/wg-client';
import { tempDir } from './helpers/daemon';
import { makeWgEasyDb, wgQuickServer } from './import-support';

const run = promisify(execFile);
const CLI = path.join(__dirname, '../src/cli/main.js');
const t = suiteNeeding('import: imported servers carry real handshakes from the clients\' own configs', ['ip', 'nft', 'wg', 'wg-quick', 'wireguard-go', 'nsenter', 'unshare'], { root: true });
const ENDPOINT_IP = '192.0.2.1';

const wg = (...args: string[]) => (input?: string) => execFileSync('wg', args, { input, encoding: 'utf8' }).trim();
function realKeys(): { privateKey: string; publicKey: string } {
  const privateKey = wg('genkey')();
  return { privateKey, publicKey: wg('pubkey')(privateKey) };
}

/** A client's own wg-quick config, as the old server handed it out. */
function clientConf(c: { privateKey: string; address: string; psk?: string }, serverKey: string, port: number, routes: string): string {
  return ['[Interface]', `PrivateKey = ${c.privateKey}`, `Address = ${c.address}`, 'DNS = 1.1.1.1', '', '[Peer]', `PublicKey = ${serverKey}`,
    ...(c.psk ? [`PresharedKey = ${c.psk}`] : []), `AllowedIPs = ${routes}`, `Endpoint = ${ENDPOINT_IP}:${port}`, 'PersistentKeepalive = 25', ''].join('\n');
}

/** The real wg-quick reads the file (strip parses every line of it) or throws. */
function wgQuickAccepts(dir: string, name: string, text: string): void {
  const file = path.join(dir, `${name}.conf`);
  fs.writeFileSync(file, text, { mode: 0o600 });
  execFileSync('wg-quick', ['strip', file], { encoding: 'utf8' });
}

const w = {} as { router: Netns; d: NsDaemon; dir: string; clients: WgClient[] };
const handshakeOf = (ifname: string, key: string): number =>
  Number(w.d.exec('wg', ['show', ifname, 'latest-handshakes']).split('\n').map((l) => l.split('\t')).find(([k]) => k === key)?.[1] ?? 0);

t.before(async () => {
  w.dir = tempDir('wgcp-imk-');
  w.clients = [];
  w.router = new Netns('imk');
  w.router.exec('ip', ['address', 'add', `${ENDPOINT_IP}/32`, 'dev', 'lo']);
  w.d = await startNsDaemon(w.router);
  await serveTcp(w.router, 7000, 'router');
});

t.after(async () => {
  await w.d?.stop();
  for (const c of w.clients ?? []) c.destroy();
  w.router?.destroy();
  if (w.d) fs.rmSync(w.d.dataDir, { recursive: true, force: true });
});

t('a wg-quick server imported by the CLI beside the running daemon: both clients shake hands with their old configs, over IPv4 and IPv6', async () => {
  const server = realKeys();
  const withPsk = { ...realKeys(), psk: wg('genpsk')(), address: '10.82.0.2/32, fd82::2/128' };
  const noPsk = { ...realKeys(), address: '10.82.0.3/32, fd82::3/128' };
  const serverConf = wgQuickServer({
    privateKey: server.privateKey, address: '10.82.0.1/24, fd82::1/64', listenPort: 51882,
    extra: ['PostUp = iptables -t nat -A POSTROUTING -s 10.82.0.0/24 -j MASQUERADE', 'PostDown = iptables -t nat -D POSTROUTING -s 10.82.0.0/24 -j MASQUERADE'],
    peers: [
      { comment: 'laptop', publicKey: withPsk.publicKey, presharedKey: withPsk.psk, allowedIps: '10.82.0.2/32, fd82::2/128' },
      { comment: 'phone', publicKey: noPsk.publicKey, allowedIps: '10.82.0.3/32, fd82::3/128' },
    ],
  });
  const confs = [withPsk, noPsk].map((c) => clientConf(c, server.publicKey, 51882, '10.82.0.0/24, fd82::/64'));
  wgQuickAccepts(w.dir, 'wg0', serverConf);
  confs.forEach((c, i) => wgQuickAccepts(w.dir, `client${i}`, c));
  const r = await run(process.execPath, [CLI, '--data-dir', w.d.dataDir, 'import', 'wg-quick', path.join(w.dir, 'wg0.conf'), '--endpoint', `${ENDPOINT_IP}:51882`]);
  assert.match(r.stdout, /imported: server \d+ "wg0" \(interface (wgcp\d+)\) with 2 peers/);
  assert.match(r.stdout, /PostUp = iptables .* reported, not run/);
  assert.match(r.stdout, /wgcpd started again: the kernel holds the imported server\n/);
  const ifname = /interface (wgcp\d+)/.exec(r.stdout)![1];
  assert.match(w.router.exec('ip', ['-br', 'address', 'show', 'dev', ifname]), /10\.82\.0\.1\/24.*fd82::1\/64/);
  for (const [i, conf] of confs.entries()) {
    const c = new WgClient(`imq${i}`, w.router, 10 + i, ENDPOINT_IP);
    w.clients.push(c);
    await c.up(conf, ['10.82.0.0/24', 'fd82::/64']);
    const ip = `10.82.0.${i + 2}`;
    assert.is(await reachSoon(c.ns, '10.82.0.1', 7000), `router ${ip}`);
    assert.is(await reachSoon(c.ns, 'fd82::1', 7000), `router fd82::${i + 2}`);
  }
  assert.ok(handshakeOf(ifname, withPsk.publicKey) > 0 && handshakeOf(ifname, noPsk.publicKey) > 0, 'the router saw both handshakes');
});

t('a wg-easy v15 database imported through the API: the kernel takes it at once, and a client on its wg-easy config shakes hands', async () => {
  const server = realKeys();
  const clients = [0, 1, 2].map((i) => ({ name: `easy-${i}`, address: `10.83.0.${i + 2}`, address6: `fd83::cafe:${i + 2}`, keys: realKeys(), preSharedKey: wg('genpsk')(), enabled: true }));
  const file = path.join(w.dir, 'wg-easy.db');
  makeWgEasyDb(file, { server, ipv4Cidr: '10.83.0.0/24', ipv6Cidr: 'fd83::cafe:0/112', port: 51883, host: ENDPOINT_IP, clients });
  const res = await w.d.api('POST', '/api/import', { source: 'wg-easy', fileBase64: fs.readFileSync(file).toString('base64') });
  assert.is(res.status, 201, res.text);
  const s = res.json.server;
  assert.equal([s.kernelState, s.address, s.address6, s.endpoint], ['up', '10.83.0.1/24', 'fd83::cafe:1/112', `${ENDPOINT_IP}:51883`]);
  assert.equal(s.peers.map((p: { publicKey: string; ip: string; ip6: string }) => [p.publicKey, p.ip, p.ip6]), clients.map((c) => [c.keys.publicKey, c.address, c.address6]));
  const dump = w.d.exec('wg', ['show', s.interface, 'dump']);
  for (const c of clients) assert.ok(dump.includes(`${c.keys.publicKey}\t${c.preSharedKey}\t`), `${c.name} is on the interface with its preshared key`);
  const c0 = clients[0];
  const conf = clientConf({ privateKey: c0.keys.privateKey, psk: c0.preSharedKey, address: `${c0.address}/32, ${c0.address6}/128` }, server.publicKey, 51883, '10.83.0.0/24, fd83::cafe:0/112');
  wgQuickAccepts(w.dir, 'easy0', conf);
  const c = new WgClient('ime', w.router, 12, ENDPOINT_IP);
  w.clients.push(c);
  await c.up(conf, ['10.83.0.0/24', 'fd83::cafe:0/112']);
  assert.is(await reachSoon(c.ns, '10.83.0.1', 7000), 'router 10.83.0.2');
  assert.is(await reachSoon(c.ns, 'fd83::cafe:1', 7000), 'router fd83::cafe:2');
  assert.ok(handshakeOf(s.interface, c0.keys.publicKey) > 0);
});

t('an import onto a link or a port another program holds is refused whole through the API', async () => {
  const before = (await w.d.api('GET', '/api/servers')).json.length;
  w.router.exec('ip', ['link', 'add', 'wgforeign0', 'type', 'veth', 'peer', 'name', 'wgforeign1']);
  const server = realKeys();
  const conf = wgQuickServer({ privateKey: server.privateKey, address: '10.84.0.1/24', listenPort: 51884, peers: [{ publicKey: realKeys().publicKey, allowedIps: '10.84.0.2/32' }] });
  const iface = await w.d.api('POST', '/api/import', { source: 'wg-quick', file: conf, interface: 'wgforeign0', endpoint: `${ENDPOINT_IP}:51884` });
  assert.equal([iface.status, iface.json.field], [409, 'interface'], iface.text);
  const holder = w.router.spawn(process.execPath, ['-e', "require('dgram').createSocket('udp4').bind(51885, () => console.log('bound'))"]);
  await new Promise((resolve) => holder.stdout!.once('data', resolve));
  const port = await w.d.api('POST', '/api/import', { source: 'wg-quick', file: conf.replace('ListenPort = 51884', 'ListenPort = 51885'), endpoint: `${ENDPOINT_IP}:51885` });
  assert.equal([port.status, port.json.field], [400, 'listenPort'], port.text);
  assert.match(port.json.error, /51885\/udp is held by another program on this router/);
  holder.kill();
  assert.is((await w.d.api('GET', '/api/servers')).json.length, before);
});

t.run();
