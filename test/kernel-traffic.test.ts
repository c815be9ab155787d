// The daemon drives a real router: wgcpd runs in a "router" namespace with WGCP_KERNEL=on,
// clients run wireguard-go with the .conf files the API hands out, and an "internet"
// namespace answers TCP. Real traffic proves the policy; tables and interfaces are read back.
import fs from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { canRunAsRoot } from './helpers/root';
import { linkNamespaces, Netns } from './helpers/netns';
import { nsRequest, startNsDaemon, type NsDaemon } from './helpers/ns-daemon';
import { reach, reachBeside, reachSoon, serveTcp, WgClient } from './helpers/wg-client';

const t = suite('kernel: traffic through a router driven by wgcpd');

const ENDPOINT_IP = '192.0.2.1';
const INTERNET = '198.51.100.2';
/** The router's tunnel address, open to every peer: the control beside a closed target. */
const ROUTER: [string, number] = ['10.77.0.1', 7000];
const OTHER_TABLE = `table inet other {
  set keep { type ipv4_addr; elements = { 203.0.113.9 } }
  chain c { type filter hook forward priority 10; policy accept; ip daddr @keep drop; }
}
`;

interface World {
  router: Netns;
  internet: Netns;
  daemon: NsDaemon;
  serverId: number;
  serverKey: string;
  clients: Record<'a' | 'b' | 'c', WgClient> & { device?: WgClient };
  peers: Record<'a' | 'b' | 'c', { id: number; ip: string; publicKey: string }>;
  otherTable: string;
  forwardId: number;
  deviceConf: string;
  extra?: WgClient;
}
const w = {} as World;

async function connectClient(name: 'a' | 'b' | 'c'): Promise<void> {
  const conf = await w.daemon.api('GET', `/api/peers/${w.peers[name].id}/config`);
  assert.is(conf.status, 200, conf.text);
  await w.clients[name].up(conf.text, ['10.77.0.0/24', '198.51.100.0/24']);
}

const routerWg = (): string => w.daemon.exec('wg', ['show', 'wgcp1', 'peers']);
const nftSet = (name: string): string => w.router.exec('nft', ['list', 'set', 'inet', 'wgcp', name]);
const put = async (name: 'a' | 'b' | 'c', body: unknown) => {
  const res = await w.daemon.api('PUT', `/api/peers/${w.peers[name].id}`, body);
  assert.is(res.status, 200, res.text);
  return res;
};

if (canRunAsRoot('kernel traffic')) {
  // uvu swallows an error thrown by a before hook: say it, so a failed setup is not silent.
  t.before(() => setUp().catch((err) => { console.error('kernel suite setup failed:', err); throw err; }));

  async function setUp(): Promise<void> {
    w.router = new Netns('router');
    w.router.exec('ip', ['address', 'add', `${ENDPOINT_IP}/32`, 'dev', 'lo']);
    w.router.exec('sysctl', ['-q', '-w', 'net.ipv4.ip_forward=1']);
    w.internet = new Netns('inet');
    linkNamespaces(w.router, '198.51.100.1/24', w.internet, `${INTERNET}/24`);
    // The uplink holds the default route: it is the router's WAN side, where port forwards apply.
    w.router.exec('ip', ['route', 'add', 'default', 'via', INTERNET]);
    await serveTcp(w.internet, 80, 'internet');
    await serveTcp(w.router, 7000, 'router');
    w.router.exec('nft', ['-f', '-'], OTHER_TABLE);
    w.otherTable = w.router.exec('nft', ['list', 'table', 'inet', 'other']);

    // A usage cycle every second: the server's onlinePeers is counted from the last one.
    w.daemon = await startNsDaemon(w.router, { env: { WGCP_USAGE_INTERVAL_S: '1' } });
    const server = await w.daemon.api('POST', '/api/servers', { name: 'office', endpoint: `${ENDPOINT_IP}:51820`, mode: 'forward', address: '10.77.0.1/24' });
    assert.is(server.status, 201, server.text);
    w.serverId = server.json.id;
    w.serverKey = server.json.publicKey;
    w.clients = { a: new WgClient('a', w.router, 1, ENDPOINT_IP), b: new WgClient('b', w.router, 2, ENDPOINT_IP), c: new WgClient('c', w.router, 3, ENDPOINT_IP) };
    w.peers = {} as World['peers'];
    for (const [name, body] of [['a', { allowInternet: true }], ['b', {}], ['c', {}]] as const) {
      const res = await w.daemon.api('POST', `/api/servers/${w.serverId}/peers`, { name, ...body });
      assert.is(res.status, 201, res.text);
      w.peers[name] = res.json;
      await connectClient(name);
      await serveTcp(w.clients[name].ns, 7000, name);
    }
  }

  t.after(async () => {
    await w.daemon?.stop();
    for (const c of Object.values(w.clients ?? {})) c.destroy();
    w.extra?.destroy();
    w.internet?.destroy();
    w.router?.destroy();
    if (w.daemon) fs.rmSync(w.daemon.dataDir, { recursive: true, force: true });
  });

  t('the server interface holds its address and the created peers', () => {
    const peers = routerWg();
    for (const p of Object.values(w.peers)) assert.ok(peers.includes(p.publicKey));
    assert.ok(w.router.exec('ip', ['-br', 'address', 'show', 'dev', 'wgcp1']).includes('10.77.0.1/24'));
  });

  t('peers reach the server tunnel address but not each other', async () => {
    assert.is(await reachSoon(w.clients.a.ns, '10.77.0.1', 7000), 'router 10.77.0.2');
    assert.is(await reachSoon(w.clients.b.ns, '10.77.0.1', 7000), 'router 10.77.0.3');
    assert.is(await reachBeside(w.clients.a.ns, [w.peers.b.ip, 7000], ROUTER), null);
    assert.is(await reachBeside(w.clients.b.ns, [w.peers.a.ip, 7000], ROUTER), null);
  });

  t('live counters from wg show dump reach the server stats through the next usage cycle: peers that shook hands are online', async () => {
    let stats = await w.daemon.api('GET', `/api/servers/${w.serverId}/stats`);
    for (let i = 0; i < 30 && stats.json?.onlinePeers < 2; i++) {
      await new Promise((r) => setTimeout(r, 200));
      stats = await w.daemon.api('GET', `/api/servers/${w.serverId}/stats`);
    }
    assert.is(stats.status, 200, stats.text);
    assert.is(stats.json.peerCount, 3);
    assert.ok(stats.json.onlinePeers >= 2 && stats.json.onlinePeers <= 3, `onlinePeers ${stats.json.onlinePeers}`);
  });

  t('allowAccess lets a open connections to b, and b still cannot open any to a', async () => {
    await put('a', { allowAccess: [w.peers.b.id] });
    assert.ok(nftSet('pairs').includes(`${w.peers.a.ip} . ${w.peers.b.ip}`));
    assert.is(await reachSoon(w.clients.a.ns, w.peers.b.ip, 7000), `b ${w.peers.a.ip}`);
    assert.is(await reachBeside(w.clients.b.ns, [w.peers.a.ip, 7000], ROUTER), null);
    assert.is(await reachBeside(w.clients.c.ns, [w.peers.b.ip, 7000], ROUTER), null);
  });

  t('an allowInternet peer reaches the internet masqueraded; others are dropped even when they send into the tunnel', async () => {
    assert.is(await reachSoon(w.clients.a.ns, INTERNET, 80), 'internet 198.51.100.1');
    w.clients.b.forceFullTunnel(w.serverKey);
    assert.is(await reachSoon(w.clients.b.ns, '10.77.0.1', 7000), 'router 10.77.0.3');
    assert.is(await reachBeside(w.clients.b.ns, [INTERNET, 80], ROUTER), null);
    assert.is(await reachBeside(w.clients.b.ns, ['198.51.100.1', 7000], ROUTER), null, 'the router\'s other addresses are closed to it too');
    assert.is(await reachBeside(w.clients.a.ns, ['198.51.100.1', 7000], ROUTER), null, 'allowInternet opens the internet, not the router\'s own addresses');
    await put('a', { lanAccess: 'lan' });
    assert.is(await reachSoon(w.clients.a.ns, '198.51.100.1', 7000), 'router 10.77.0.2', 'lanAccess "lan" opens them');
  });

  t('an update takes effect at once, without a restart', async () => {
    const pid = w.daemon.pid;
    await put('b', { allowInternet: true });
    assert.is(await reachSoon(w.clients.b.ns, INTERNET, 80), 'internet 198.51.100.1');
    await put('b', { allowInternet: false });
    assert.is(await reachBeside(w.clients.b.ns, [INTERNET, 80], ROUTER), null);
    assert.is(w.daemon.pid, pid);
  });

  t('a long-lived nft that dies is started again by the next change', async () => {
    const pids = w.router.exec('ip', ['netns', 'pids', w.router.name]).split(/\s+/).filter(Boolean);
    const nft = pids.find((pid) => { try { return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8') === 'nft\0-i\0'; } catch { return false; } });
    assert.ok(nft, 'the daemon keeps one nft -i');
    process.kill(Number(nft), 'SIGKILL');
    // Gone from /proc once the daemon has reaped it: the daemon has seen it die.
    while (fs.existsSync(`/proc/${nft}`)) await new Promise((r) => setTimeout(r, 20));
    await put('b', { allowInternet: true });
    assert.ok(nftSet('internet').includes(w.peers.b.ip));
    await put('b', { allowInternet: false });
    assert.not.ok(nftSet('internet').includes(w.peers.b.ip));
  });

  t('disabling a peer takes it off the interface and out of the sets; enabling brings it back', async () => {
    await put('a', { enabled: false });
    assert.not.ok(routerWg().includes(w.peers.a.publicKey));
    assert.not.ok(nftSet('internet').includes(w.peers.a.ip));
    assert.not.ok(nftSet('pairs').includes(w.peers.a.ip));
    // Off the interface (checked above): no path is left to compare with, the router drops its handshakes.
    assert.is(await reach(w.clients.a.ns, '10.77.0.1', 7000), null);
    await put('a', { enabled: true });
    assert.ok(routerWg().includes(w.peers.a.publicKey));
    assert.ok(nftSet('pairs').includes(`${w.peers.a.ip} . ${w.peers.b.ip}`));
    await connectClient('a'); // a fresh session: the router forgot the old one
    assert.is(await reachSoon(w.clients.a.ns, INTERNET, 80), 'internet 198.51.100.1');
    assert.is(await reachSoon(w.clients.a.ns, w.peers.b.ip, 7000), `b ${w.peers.a.ip}`);
  });

  t('deleting a peer removes it from the interface and drops the pairs that named it', async () => {
    const del = await w.daemon.api('DELETE', `/api/peers/${w.peers.b.id}`);
    assert.is(del.status, 204, del.text);
    assert.not.ok(routerWg().includes(w.peers.b.publicKey));
    assert.not.ok(nftSet('pairs').includes(w.peers.b.ip));
    // Off the interface (checked above): no path is left to compare with.
    assert.is(await reach(w.clients.b.ns, '10.77.0.1', 7000), null);
    const a = await w.daemon.api('GET', `/api/peers/${w.peers.a.id}`);
    assert.equal(a.json.allowAccess, []);
  });

  t('a device port forward sends the router port through the tunnel to the device, masqueraded', async () => {
    const token = await w.daemon.api('POST', `/api/servers/${w.serverId}/tokens`);
    assert.is(token.status, 201, token.text);
    const prov = await nsRequest(w.router, 'http://127.0.0.1:8080/api/v1/provision', 'POST', {}, { token: token.json.token, hwid: 'kernel-test-device' });
    assert.is(prov.status, 200, prov.text);
    const device = (await w.daemon.api('GET', '/api/devices')).json.find((d: { hwid: string }) => d.hwid === 'kernel-test-device');
    const conf = await w.daemon.api('GET', `/api/peers/${device.peerID}/config`);
    w.deviceConf = conf.text;
    w.clients.device = new WgClient('dev', w.router, 4, ENDPOINT_IP);
    await w.clients.device.up(conf.text, ['10.77.0.0/24']);
    await serveTcp(w.clients.device.ns, 7000, 'device');
    assert.is(await reachBeside(w.internet, ['198.51.100.1', 9090], ['198.51.100.1', 7000]), null);
    const fwd = await w.daemon.api('POST', `/api/devices/${device.id}/forwards`, { protocol: 'tcp', listenPort: 9090, targetPort: 7000 });
    assert.is(fwd.status, 201, fwd.text);
    w.forwardId = fwd.json.id;
    assert.ok(w.router.exec('nft', ['list', 'map', 'inet', 'wgcp', 'port_forwards']).includes(`tcp . 9090 : ${device.ip} . 7000`));
    assert.is(await reachSoon(w.internet, '198.51.100.1', 9090), 'device 10.77.0.1');
  });

  t('a port forward matches only traffic from the WAN side: not from the LAN, not through a tunnel', async () => {
    assert.match(nftSet('wan_ifaces'), /"va[0-9a-f]+"/);
    assert.is(await reachBeside(w.clients.c.ns, ['172.16.3.1', 9090], ['172.16.3.1', 7000]), null, 'a LAN host reaching the router port is not forwarded');
    assert.is(await reachBeside(w.clients.a.ns, ['10.77.0.1', 9090], ROUTER), null, 'a tunnel peer reaching the router port is not forwarded');
    assert.is(await reachSoon(w.internet, '198.51.100.1', 9090), 'device 10.77.0.1', 'the WAN still is');
  });

  t('a restart reconciles: stray elements go, interfaces and peers come back', async () => {
    w.router.exec('nft', ['add', 'element', 'inet', 'wgcp', 'pairs', `{ ${w.peers.c.ip} . ${w.peers.a.ip} }`]);
    // A left-over of wgcp's own (it carries wgcp's mark) that no server holds; unmarked links are the router's (kernel-ownership suite).
    w.router.exec('ip', ['tuntap', 'add', 'dev', 'wgcp9', 'mode', 'tun']);
    w.router.exec('ip', ['link', 'set', 'dev', 'wgcp9', 'alias', 'wgcp-managed']);
    assert.is(await w.daemon.stop(), 0);
    w.daemon = await startNsDaemon(w.router, { dataDir: w.daemon.dataDir });
    assert.not.ok(nftSet('pairs').includes(`${w.peers.c.ip} . ${w.peers.a.ip}`));
    assert.ok(nftSet('internet').includes(w.peers.a.ip));
    assert.not.match(w.router.exec('ip', ['-o', 'link', 'show']), /wgcp9/);
    const peers = routerWg();
    assert.ok(peers.includes(w.peers.a.publicKey) && peers.includes(w.peers.c.publicKey));
    assert.not.ok(peers.includes(w.peers.b.publicKey));
    await connectClient('a');
    await connectClient('c');
    assert.is(await reachSoon(w.clients.a.ns, INTERNET, 80), 'internet 198.51.100.1');
    assert.is(await reachSoon(w.clients.c.ns, '10.77.0.1', 7000), 'router 10.77.0.4');
    assert.is(await reachBeside(w.clients.c.ns, [w.peers.a.ip, 7000], ROUTER), null);
    await w.clients.device!.up(w.deviceConf, ['10.77.0.0/24']);
    assert.is(await reachSoon(w.internet, '198.51.100.1', 9090), 'device 10.77.0.1', 'the forward came back with the restart');
  });

  t('deleting the forward closes the router port again', async () => {
    const del = await w.daemon.api('DELETE', `/api/forwards/${w.forwardId}`);
    assert.is(del.status, 204, del.text);
    assert.not.ok(w.router.exec('nft', ['list', 'map', 'inet', 'wgcp', 'port_forwards']).includes('9090'));
    assert.is(await reachBeside(w.internet, ['198.51.100.1', 9090], ['198.51.100.1', 7000]), null);
  });

  t('switching the server to standalone removes its rules; back to forward restores them', async () => {
    let res = await w.daemon.api('PUT', `/api/servers/${w.serverId}`, { mode: 'standalone' });
    assert.is(res.status, 200, res.text);
    assert.not.ok(nftSet('tunnels').includes('wgcp1'));
    assert.not.ok(nftSet('internet').includes(w.peers.a.ip));
    res = await w.daemon.api('PUT', `/api/servers/${w.serverId}`, { mode: 'forward' });
    assert.is(res.status, 200, res.text);
    assert.ok(nftSet('tunnels').includes('wgcp1'));
    assert.ok(nftSet('internet').includes(w.peers.a.ip));
    assert.is(await reachBeside(w.clients.c.ns, [w.peers.a.ip, 7000], ROUTER), null);
  });

  t('a standalone server\'s peers and forward-mode peers never reach each other, even with allowInternet', async () => {
    const server = await w.daemon.api('POST', '/api/servers', { name: 'lab', endpoint: `${ENDPOINT_IP}:51830`, mode: 'standalone', address: '10.78.0.1/24' });
    assert.is(server.status, 201, server.text);
    const e = await w.daemon.api('POST', `/api/servers/${server.json.id}/peers`, { name: 'e', allowInternet: true });
    assert.is(e.status, 201, e.text);
    const client = new WgClient('e', w.router, 5, ENDPOINT_IP);
    w.extra = client;
    await client.up((await w.daemon.api('GET', `/api/peers/${e.json.id}/config`)).text, ['10.78.0.0/24', '10.77.0.0/24']);
    await serveTcp(client.ns, 7000, 'e');
    await w.clients.a.up((await w.daemon.api('GET', `/api/peers/${w.peers.a.id}/config`)).text, ['10.77.0.0/24', '198.51.100.0/24', '10.78.0.0/24']);
    assert.is(await reachSoon(client.ns, '10.78.0.1', 7000), 'router 10.78.0.2', 'the standalone tunnel works');
    assert.is(await reachSoon(w.clients.a.ns, '10.77.0.1', 7000), 'router 10.77.0.2', 'and so does the forward one');
    assert.is(await reachBeside(client.ns, [w.peers.a.ip, 7000], ['10.78.0.1', 7000]), null, 'standalone to forward-mode: dropped');
    assert.is(await reachBeside(w.clients.a.ns, [e.json.ip, 7000], ROUTER), null, 'forward-mode to standalone: dropped');
    assert.match(nftSet('standalone'), /"wgcp2"/);
  });

  t('the table of another owner is left exactly as it was', () => {
    assert.is(w.router.exec('nft', ['list', 'table', 'inet', 'other']), w.otherTable);
  });
}

t.run();
