// Networks behind a peer with real traffic: wgcpd in a router namespace with a LAN host
// behind it, and a site router (a wireguard-go peer) with a camera on its LAN behind it. The
// peer's `networks` put the camera's prefixes in the peer's AllowedIPs on the router and a
// route through the interface, so the LAN host reaches the camera (both families); changing
// them moves exactly that peer's routes and AllowedIPs; overlapping prefixes are refused.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { canRunAsRoot } from './helpers/root';
import { forwarding, hostBehind, Netns } from './helpers/netns';
import { startNsDaemon, wgcpCheck, type NsDaemon } from './helpers/ns-daemon';
import { reachSoon, serveTcp, WgClient } from './helpers/wg-client';

const t = suite('networks behind a peer, real traffic');
const ENDPOINT_IP = '192.0.2.1';
let router: Netns;
let lan: Netns;
let camera: Netns;
let daemon: NsDaemon;
let site: WgClient;
let serverId: number;
let ifname: string;
let peer: { id: number; publicKey: string };


if (canRunAsRoot('networks behind a peer', ['ip', 'wg', 'wireguard-go', 'nft'])) {
  t.before(async () => {
    router = new Netns('netr');
    router.exec('ip', ['address', 'add', `${ENDPOINT_IP}/32`, 'dev', 'lo']);
    forwarding(router);
    lan = hostBehind(router, 'netl', '192.168.60', 'fd60');
    daemon = await startNsDaemon(router);
    const server = await daemon.api('POST', '/api/servers', { name: 'hq', endpoint: `${ENDPOINT_IP}:51820`, mode: 'forward', address: '10.79.0.1/24', address6: 'fd79::1/64' });
    assert.is(server.status, 201, server.text);
    serverId = server.json.id;
    ifname = server.json.interface;
    const created = await daemon.api('POST', `/api/servers/${serverId}/peers`, {
      name: 'branch', networks: ['10.90.0.0/24', 'fd90::/64'], reachableFrom: 'lan', clientAllowedIPs: ['10.79.0.0/24', 'fd79::/64', '192.168.60.0/24', 'fd60::/64'],
    });
    assert.is(created.status, 201, created.text);
    peer = created.json;
    site = new WgClient('nets', router, 31, ENDPOINT_IP);
    forwarding(site.ns);
    camera = hostBehind(site.ns, 'netc', '10.90.0', 'fd90');
    await site.up((await daemon.api('GET', `/api/peers/${peer.id}/config`)).text, ['10.79.0.0/24', 'fd79::/64', '192.168.60.0/24', 'fd60::/64']);
    await serveTcp(camera, 7100, 'camera');
  });

  t.after(async () => {
    await daemon?.stop();
    site?.destroy();
    camera?.destroy();
    lan?.destroy();
    router?.destroy();
  });

  const routes = () => router.exec('ip', ['route', 'show', 'dev', ifname]) + router.exec('ip', ['-6', 'route', 'show', 'dev', ifname]);
  const allowed = () => daemon.exec('wg', ['show', ifname, 'allowed-ips']);

  t('the peer shows its networks; the router holds them in its AllowedIPs and routes them through the interface', async () => {
    assert.equal((await daemon.api('GET', `/api/peers/${peer.id}`)).json.networks, ['10.90.0.0/24', 'fd90::/64']);
    assert.match(allowed(), /10\.90\.0\.0\/24/);
    assert.match(allowed(), /fd90::\/64/);
    assert.match(routes(), /^10\.90\.0\.0\/24 /m);
    assert.match(routes(), /^fd90::\/64 /m);
  });

  t('`wgcp check` finds the interface as wgcp holds it: the networks in the AllowedIPs are no drift', () => {
    const r = wgcpCheck(daemon);
    assert.is(r.code, 0, r.out);
  });

  t('a LAN host behind the router reaches the camera behind the peer, over IPv4 and IPv6', async () => {
    assert.match((await reachSoon(lan, '10.90.0.2', 7100)) ?? '', /^camera /);
    assert.match((await reachSoon(lan, 'fd90::2', 7100)) ?? '', /^camera /);
  });

  t('a change of networks moves only that peer\'s routes and AllowedIPs', async () => {
    const r = await daemon.api('PUT', `/api/peers/${peer.id}`, { networks: ['10.91.0.0/24', 'fd90::/64'] });
    assert.is(r.status, 200, r.text);
    assert.not.match(routes(), /^10\.90\.0\.0\/24 /m);
    assert.match(routes(), /^10\.91\.0\.0\/24 /m);
    assert.match(routes(), /^fd90::\/64 /m, 'the kept network keeps its route');
    assert.not.match(allowed(), /10\.90\.0\.0\/24/);
    assert.match(allowed(), /10\.91\.0\.0\/24/);
    const back = await daemon.api('PUT', `/api/peers/${peer.id}`, { networks: ['10.90.0.0/24', 'fd90::/64'] });
    assert.is(back.status, 200, back.text);
    assert.match((await reachSoon(lan, '10.90.0.2', 7100)) ?? '', /^camera /);
  });

  t('a route to a peer\'s network deleted by hand is drift, put back by the reconciler; a route wgcp did not make is left alone', async () => {
    router.exec('ip', ['route', 'add', '10.99.0.0/24', 'dev', ifname]);
    router.exec('ip', ['route', 'del', '10.90.0.0/24', 'dev', ifname]);
    router.exec('ip', ['-6', 'route', 'del', 'fd90::/64', 'dev', ifname]);
    const deadline = Date.now() + 20_000;
    while (!/^10\.90\.0\.0\/24 /m.test(routes()) || !/^fd90::\/64 /m.test(routes())) {
      assert.ok(Date.now() < deadline, `the routes were not put back: ${routes()}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    assert.match(routes(), /^10\.99\.0\.0\/24 /m, 'the foreign route stays');
    assert.match((await reachSoon(lan, '10.90.0.2', 7100)) ?? '', /^camera /);
    router.exec('ip', ['route', 'del', '10.99.0.0/24', 'dev', ifname]);
  });

  t('overlapping or default prefixes are refused with 400 naming networks', async () => {
    const other = await daemon.api('POST', `/api/servers/${serverId}/peers`, { name: 'other' });
    for (const [nets, why] of [
      [['192.168.60.128/25'], /router's own network 192\.168\.60\.0\/24/],
      [['fd60::/48'], /router's own network fd60::\/64/],
      [['10.79.0.0/16'], /subnet 10\.79\.0\.1\/24 of server/],
      [['10.90.0.128/25'], /behind peer/],
      [['0.0.0.0/0'], /default route/],
      [['10.92.0.0/24', '10.92.0.0/16'], /given too/],
      [['10.92.0.0/33'], /prefixes/],
    ] as const) {
      const r = await daemon.api('PUT', `/api/peers/${other.json.id}`, { networks: nets });
      assert.is(r.status, 400, `${nets}: ${r.text}`);
      assert.is(r.json.field, 'networks');
      assert.match(r.json.error, why);
    }
    assert.is((await daemon.api('PUT', `/api/peers/${other.json.id}`, { networks: ['10.92.0.0/24'] })).status, 200);
  });
}

t.run();
