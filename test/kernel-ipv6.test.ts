// IPv6 through a real router driven by wgcpd: dual-stack tunnels to wireguard-go clients,
// isolation and allowAccess over IPv6, allowInternet masqueraded from a unique local prefix
// and routed as it is from a global one, a port forward reached over IPv6, and a restart
// that holds both families. The router's WAN forwards IPv6 as an operator sets it
// (force_forwarding on the uplink); wgcpd turns it on for its own interfaces only.
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import * as assert from 'uvu/assert';
import { suiteNeeding } from './helpers/root';
import { tempDir } from './helpers/daemon';
import { linkNamespaces, Netns } from './helpers/netns';
import { nsRequest, startNsDaemon, type NsDaemon } from './helpers/ns-daemon';
import { reachBeside, reachSoon, serveTcp, WgClient } from './helpers/wg-client';

const t = suiteNeeding('kernel: IPv6 through a router driven by wgcpd', ['ip', 'nft', 'wg', 'wireguard-go', 'wg-quick', 'sysctl'], { root: true });

const ENDPOINT_IP = '192.0.2.1';
// Usage is collected every second, so the suite sees IPv6 traffic counted without waiting a minute.
const DAEMON_ENV = { WGCP_USAGE_INTERVAL_S: '1' };
const WAN6 = '2001:db8:ff::1';
const INTERNET6 = '2001:db8:ff::2';

interface World {
  router: Netns;
  internet: Netns;
  daemon: NsDaemon;
  wan: string;
  serverId: number;
  prefix: string;
  clients: Record<string, WgClient>;
  peers: Record<string, { id: number; ip: string; ip6: string; publicKey: string }>;
}
const w = { clients: {}, peers: {} } as World;
/** The server's IPv6 tunnel address, open to every peer: the control beside a closed target. */
const router6 = (): [string, number] => [w.prefix.replace('::/64', '::1'), 7000];

async function addPeer(name: string, serverId: number, index: number, body: Record<string, unknown>, routes: string[]): Promise<void> {
  const res = await w.daemon.api('POST', `/api/servers/${serverId}/peers`, { name, ...body });
  assert.is(res.status, 201, res.text);
  w.peers[name] = res.json;
  w.clients[name] = new WgClient(`v6${name}`, w.router, 40 + index, ENDPOINT_IP);
  await w.clients[name].up((await w.daemon.api('GET', `/api/peers/${res.json.id}/config`)).text, routes);
  await serveTcp(w.clients[name].ns, 7000, name);
}

const nftSet = (name: string): string => w.router.exec('nft', ['list', 'set', 'inet', 'wgcp', name]);

{
  t.before(() => setUp().catch((err) => { console.error('IPv6 suite setup failed:', err); throw err; }));

  async function setUp(): Promise<void> {
    w.router = new Netns('r6');
    w.router.exec('ip', ['address', 'add', `${ENDPOINT_IP}/32`, 'dev', 'lo']);
    w.router.exec('sysctl', ['-q', '-w', 'net.ipv4.ip_forward=1']);
    w.internet = new Netns('i6');
    const { aIf } = linkNamespaces(w.router, '198.51.100.1/24', w.internet, '198.51.100.2/24');
    w.wan = aIf;
    w.router.exec('ip', ['address', 'add', `${WAN6}/64`, 'dev', aIf, 'nodad']);
    w.internet.exec('ip', ['address', 'add', `${INTERNET6}/64`, 'dev', `vb${aIf.slice(2)}`, 'nodad']);
    w.router.exec('ip', ['route', 'add', 'default', 'via', '198.51.100.2']);
    w.router.exec('ip', ['-6', 'route', 'add', 'default', 'via', INTERNET6]);
    // The operator's part: the uplink forwards IPv6 (replies come in there); all.forwarding stays 0.
    w.router.exec('sysctl', ['-q', '-w', `net.ipv6.conf.${aIf}.force_forwarding=1`]);
    // The internet knows the way back to the global prefix of the routed server.
    w.internet.exec('ip', ['-6', 'route', 'add', '2001:db8:77::/64', 'via', WAN6]);
    await serveTcp(w.internet, 80, 'internet');
    await serveTcp(w.router, 7000, 'router');

    w.daemon = await startNsDaemon(w.router, { env: DAEMON_ENV });
    const server = await w.daemon.api('POST', '/api/servers', { name: 'dual', endpoint: `${ENDPOINT_IP}:51820`, mode: 'forward', address: '10.88.0.1/24' });
    assert.is(server.status, 201, server.text);
    w.serverId = server.json.id;
    w.prefix = server.json.address6.replace('::1/64', '::/64');
    const routes = ['10.88.0.0/24', w.prefix, '2001:db8:ff::/64'];
    await addPeer('a', w.serverId, 1, { allowInternet: true }, routes);
    await addPeer('b', w.serverId, 2, {}, routes);
  }

  t.after(async () => {
    await w.daemon?.stop();
    for (const c of Object.values(w.clients)) c.destroy();
    w.internet?.destroy();
    w.router?.destroy();
    if (w.daemon) fs.rmSync(w.daemon.dataDir, { recursive: true, force: true });
  });

  t('the interface holds both addresses and forwards IPv6 for itself only', () => {
    const shown = w.router.exec('ip', ['address', 'show', 'dev', 'wgcp1']);
    assert.match(shown, 'inet 10.88.0.1/24');
    assert.match(shown, `inet6 ${w.prefix.replace('::/64', '::1/64')}`);
    assert.is(w.router.exec('sysctl', ['-n', 'net.ipv6.conf.wgcp1.force_forwarding']).trim(), '1');
    assert.is(w.router.exec('sysctl', ['-n', 'net.ipv6.conf.all.forwarding']).trim(), '0', 'not the whole router');
    assert.match(w.daemon.output(), /IPv6 forwarding on for the interface/);
  });

  t('a peer reaches the server\'s IPv6 tunnel address', async () => {
    const server6 = w.prefix.replace('::/64', '::1');
    assert.is(await reachSoon(w.clients.a.ns, server6, 7000), `router ${w.peers.a.ip6}`);
    assert.is(await reachSoon(w.clients.b.ns, server6, 7000), `router ${w.peers.b.ip6}`);
  });

  t('two peers cannot reach each other over IPv6 until allowAccess says so, and then one way only', async () => {
    assert.is(await reachBeside(w.clients.a.ns, [w.peers.b.ip6, 7000], router6()), null);
    assert.is(await reachBeside(w.clients.b.ns, [w.peers.a.ip6, 7000], router6()), null);
    const res = await w.daemon.api('PUT', `/api/peers/${w.peers.a.id}`, { allowAccess: [w.peers.b.id] });
    assert.is(res.status, 200, res.text);
    assert.match(nftSet('pairs6'), `${w.peers.a.ip6} . ${w.peers.b.ip6}`);
    assert.is(await reachSoon(w.clients.a.ns, w.peers.b.ip6, 7000), `b ${w.peers.a.ip6}`);
    assert.is(await reachBeside(w.clients.b.ns, [w.peers.a.ip6, 7000], router6()), null);
  });

  t('allowInternet reaches a WAN host over IPv6, masqueraded from the router\'s WAN address; without it nothing leaves', async () => {
    assert.is(await reachSoon(w.clients.a.ns, INTERNET6, 80), `internet ${WAN6}`);
    assert.is(await reachBeside(w.clients.b.ns, [INTERNET6, 80], router6()), null);
    assert.is(await reachBeside(w.clients.b.ns, [WAN6, 7000], router6()), null, 'nor the router\'s other addresses');
  });

  t('usage counts a peer\'s IPv6 traffic like any other', async () => {
    const before = (await w.daemon.api('GET', `/api/peers/${w.peers.b.id}`)).json.currentDataUsageBytes;
    for (let i = 0; i < 5; i++) assert.ok(await reachSoon(w.clients.b.ns, w.prefix.replace('::/64', '::1'), 7000));
    let after = before;
    // Five TCP exchanges over IPv6 are well over 1,000 bytes; a keepalive is 32.
    for (let i = 0; i < 50 && after < before + 1000; i++) {
      await new Promise((r) => setTimeout(r, 200));
      after = (await w.daemon.api('GET', `/api/peers/${w.peers.b.id}`)).json.currentDataUsageBytes;
    }
    assert.ok(after >= before + 1000, `usage grew from ${before} to ${after}`);
  });

  t('a server with a global prefix routes its peers\' IPv6 as it is, without NAT', async () => {
    const g = await w.daemon.api('POST', '/api/servers', { name: 'global', endpoint: `${ENDPOINT_IP}:51821`, mode: 'forward', address: '10.89.0.1/24', address6: '2001:db8:77::1/64' });
    assert.is(g.status, 201, g.text);
    await addPeer('g', g.json.id, 3, { allowInternet: true }, ['10.89.0.0/24', '2001:db8:77::/64', '2001:db8:ff::/64']);
    assert.is(await reachSoon(w.clients.g.ns, INTERNET6, 80), `internet ${w.peers.g.ip6}`);
  });

  t('a device port forward is reached over IPv6 from the WAN side', async () => {
    const token = (await w.daemon.api('POST', `/api/servers/${w.serverId}/tokens`)).json.token;
    const prov = await nsRequest(w.router, 'http://127.0.0.1:8080/api/v1/provision', 'POST', {}, { token, hwid: 'v6-device' });
    assert.is(prov.status, 200, prov.text);
    const device = (await w.daemon.api('GET', '/api/devices')).json.find((d: { hwid: string }) => d.hwid === 'v6-device');
    const peer = (await w.daemon.api('GET', `/api/peers/${device.peerID}`)).json;
    w.clients.dev = new WgClient('v6dev', w.router, 44, ENDPOINT_IP);
    await w.clients.dev.up((await w.daemon.api('GET', `/api/peers/${device.peerID}/config`)).text, ['10.88.0.0/24', w.prefix]);
    await serveTcp(w.clients.dev.ns, 7000, 'device');
    const fwd = await w.daemon.api('POST', `/api/devices/${device.id}/forwards`, { protocol: 'tcp', listenPort: 9096, targetPort: 7000 });
    assert.is(fwd.status, 201, fwd.text);
    assert.match(w.router.exec('nft', ['list', 'map', 'inet', 'wgcp', 'port_forwards6']), `tcp . 9096 : ${peer.ip6} . 7000`);
    assert.is(await reachSoon(w.internet, WAN6, 9096), `device ${w.prefix.replace('::/64', '::1')}`);
  });

  t('a restart holds both families', async () => {
    const before = { pairs6: nftSet('pairs6'), internet6: nftSet('internet6'), addrs: nftSet('server_addrs6') };
    assert.is(await w.daemon.stop(), 0);
    w.daemon = await startNsDaemon(w.router, { dataDir: w.daemon.dataDir, env: DAEMON_ENV });
    assert.equal({ pairs6: nftSet('pairs6'), internet6: nftSet('internet6'), addrs: nftSet('server_addrs6') }, before);
    await w.clients.a.up((await w.daemon.api('GET', `/api/peers/${w.peers.a.id}/config`)).text, ['10.88.0.0/24', w.prefix, '2001:db8:ff::/64']);
    assert.is(await reachSoon(w.clients.a.ns, INTERNET6, 80), `internet ${WAN6}`);
  });

  t('the dual-stack .conf is what wg-quick accepts (wg-quick strip) and wg then loads', async () => {
    const conf = (await w.daemon.api('GET', `/api/peers/${w.peers.b.id}/config`)).text;
    assert.match(conf, new RegExp(`^Address = ${w.peers.b.ip}/32, ${w.peers.b.ip6}/128$`, 'm'));
    assert.match(conf, new RegExp(`^AllowedIPs = 10\\.88\\.0\\.0/24, ${w.prefix}$`, 'm'));
    const dir = tempDir('wgcp-quick-');
    const file = path.join(dir, 'wgq6.conf');
    fs.writeFileSync(file, conf, { mode: 0o600 });
    const stripped = execFileSync('wg-quick', ['strip', file], { encoding: 'utf8' });
    assert.not.match(stripped, /^Address/m);
    const ns = new Netns('q6');
    try {
      ns.exec('wireguard-go', ['wgq6']);
      const strippedFile = path.join(dir, 'stripped.conf');
      fs.writeFileSync(strippedFile, stripped, { mode: 0o600 });
      ns.exec('wg', ['setconf', 'wgq6', strippedFile]);
      assert.match(ns.exec('wg', ['show', 'wgq6', 'allowed-ips']), w.prefix);
    } finally {
      ns.destroy();
    }
  });
}

t.run();
