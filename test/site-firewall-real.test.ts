// The filter between the router's networks and the networks behind peers, with real traffic:
// wgcpd in a router namespace with a LAN host and an internet host beside it; a site router
// (a camera on its LAN), a device (a sensor on its LAN) and a phone as wireguard-go peers.
// Each path that lanAccess, reachableFrom, allowAccess or allowInternet opens carries TCP,
// UDP and ICMP in both families the way it was opened, and every other one is dropped: a
// new connection into a tunnel that does not allow it is no reply.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { canRunAsRoot } from './helpers/root';
import { forwarding, hostBehind, linkNamespaces, Netns } from './helpers/netns';
import { startNsDaemon, wgcpCheck, type NsDaemon } from './helpers/ns-daemon';
import { WgClient } from './helpers/wg-client';

const t = suite('site firewall: the router\'s networks and the networks behind peers, real traffic');
const runAsync = promisify(execFile);
const PROBE = path.join(__dirname, 'helpers', 'flow-probe.js');
const PORT = 7300;
const ENDPOINT_IP = '192.0.2.1';
const HOST = {
  lan: ['192.168.61.2', 'fd61::2'], routerLan: ['192.168.61.1', 'fd61::1'], net: ['203.0.113.2', '2001:db8:1::2'], routerWan: ['203.0.113.1', '2001:db8:1::1'],
  camera: ['10.93.0.2', 'fd93::2'], sensor: ['10.94.0.2', 'fd94::2'], tunnel: ['10.81.0.1', 'fd81::1'],
} as const;
/** What every client routes into its tunnel: the router's side and the other sites, so a denied flow is dropped by the router, not lost on the way. */
const TUNNEL_ROUTES = ['10.81.0.0/24', 'fd81::/64', '192.168.61.0/24', 'fd61::/64', '203.0.113.0/24', '2001:db8:1::/64'];

interface World { router: Netns; lan: Netns; net: Netns; camera: Netns; sensor: Netns; site: WgClient; device: WgClient; phone: WgClient; daemon: NsDaemon }
const w = {} as World;
const peers = {} as Record<'site' | 'device' | 'phone', { id: number; ip: string; ip6: string }>;

type Flow = ['tcp' | 'udp' | 'icmp', string, number];
const flowsTo = (hosts: readonly string[]): Flow[] => hosts.flatMap((h) => (['tcp', 'udp', 'icmp'] as const).map((p): Flow => [p, h, PORT]));

async function tryFlows(ns: Netns, flows: Flow[]): Promise<(string | null)[]> {
  const { stdout } = await runAsync('ip', ['netns', 'exec', ns.name, process.execPath, PROBE, 'try', JSON.stringify(flows), '2500']);
  return JSON.parse(stdout) as (string | null)[];
}

/**
 * From `ns`, every flow to `open` answers and, in that same try, none to `closed` does: the
 * open ones, over the same tunnel and at the same time, say a closed one would have answered
 * by then. A few tries, as the first packets wait for handshakes.
 */
async function expectFlows(ns: Netns, open: readonly string[], closed: readonly string[]): Promise<(string | null)[]> {
  const flows = [...flowsTo(open), ...flowsTo(closed)];
  let got: (string | null)[] = [];
  for (let i = 0; i < 4; i++) {
    got = await tryFlows(ns, flows);
    if (got.slice(0, open.length * 3).every((a) => a !== null)) break;
  }
  const show = (from: number, to: number) => flows.slice(from, to).map((f, i) => `${f[0]} ${f[1]}: ${got[from + i]}`).join('; ');
  assert.ok(got.slice(0, open.length * 3).every((a) => a !== null), `open from ${ns.name}: ${show(0, open.length * 3)}`);
  assert.ok(got.slice(open.length * 3).every((a) => a === null), `closed from ${ns.name}: ${show(open.length * 3, flows.length)}`);
  return got;
}

function serveFlows(ns: Netns, label: string): Promise<void> {
  const child = ns.spawn(process.execPath, [PROBE, 'serve', String(PORT), label]);
  return new Promise((resolve, reject) => {
    child.stdout!.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`flow server ${label} exited with ${code}`)));
  });
}


async function peer(name: 'site' | 'device' | 'phone', body: Record<string, unknown>, index: number, own: string[]): Promise<WgClient> {
  const r = await w.daemon.api('POST', '/api/servers/1/peers', { name, clientAllowedIPs: 'full', ...body });
  assert.is(r.status, 201, r.text);
  peers[name] = r.json;
  const client = new WgClient(name, w.router, index, ENDPOINT_IP);
  forwarding(client.ns);
  const others = ['10.93.0.0/24', 'fd93::/64', '10.94.0.0/24', 'fd94::/64'].filter((n) => !own.includes(n));
  await client.up((await w.daemon.api('GET', `/api/peers/${r.json.id}/config`)).text, [...TUNNEL_ROUTES, ...others]);
  return client;
}

const put = async (name: 'site' | 'device' | 'phone', body: Record<string, unknown>) => {
  const r = await w.daemon.api('PUT', `/api/peers/${peers[name].id}`, body);
  assert.is(r.status, 200, r.text);
  return r.json;
};
const nftSet = (name: string): string => w.router.exec('nft', ['list', 'set', 'inet', 'wgcp', name]);

if (canRunAsRoot('site firewall', ['ip', 'wg', 'wireguard-go', 'nft', 'ping'])) {
  t.before(async () => {
    w.router = new Netns('fwr');
    w.router.exec('ip', ['address', 'add', `${ENDPOINT_IP}/32`, 'dev', 'lo']);
    forwarding(w.router);
    w.lan = hostBehind(w.router, 'fwl', '192.168.61', 'fd61');
    w.net = new Netns('fwn');
    const up = linkNamespaces(w.router, '203.0.113.1/24', w.net, '203.0.113.2/24');
    w.router.exec('ip', ['address', 'add', '2001:db8:1::1/64', 'dev', up.aIf, 'nodad']);
    w.net.exec('ip', ['address', 'add', '2001:db8:1::2/64', 'dev', up.bIf, 'nodad']);
    // The uplink holds the default routes: the WAN, whose public subnet is the internet's.
    w.router.exec('ip', ['route', 'add', 'default', 'via', '203.0.113.2']);
    w.router.exec('ip', ['-6', 'route', 'add', 'default', 'via', '2001:db8:1::2']);
    // The internet host sends the sites' prefixes to the router, so a denied flow reaches its filter.
    for (const n of ['10.93.0.0/24', '10.94.0.0/24', '10.81.0.0/24']) w.net.exec('ip', ['route', 'add', n, 'via', '203.0.113.1']);
    for (const n of ['fd93::/64', 'fd94::/64', 'fd81::/64']) w.net.exec('ip', ['-6', 'route', 'add', n, 'via', '2001:db8:1::1']);
    w.daemon = await startNsDaemon(w.router);
    const server = await w.daemon.api('POST', '/api/servers', { name: 'hq', endpoint: `${ENDPOINT_IP}:51820`, mode: 'forward', address: '10.81.0.1/24', address6: 'fd81::1/64' });
    assert.is(server.status, 201, server.text);
    w.device = await peer('device', { networks: ['10.94.0.0/24', 'fd94::/64'] }, 52, ['10.94.0.0/24', 'fd94::/64']);
    w.site = await peer('site', {
      networks: ['10.93.0.0/24', 'fd93::/64'], reachableFrom: 'lan', lanAccess: ['192.168.61.0/24', 'fd61::/64'], allowAccess: [peers.device.id],
    }, 51, ['10.93.0.0/24', 'fd93::/64']);
    w.phone = await peer('phone', { allowInternet: true }, 53, []);
    w.camera = hostBehind(w.site.ns, 'fwc', '10.93.0', 'fd93');
    w.sensor = hostBehind(w.device.ns, 'fws', '10.94.0', 'fd94');
    await Promise.all([[w.router, 'router'], [w.lan, 'lan'], [w.net, 'net'], [w.camera, 'camera'], [w.sensor, 'sensor'], [w.phone.ns, 'phone']]
      .map(([ns, label]) => serveFlows(ns as Netns, label as string)));
  });

  t.after(async () => {
    await w.daemon?.stop();
    for (const ns of [w.camera, w.sensor, w.site, w.device, w.phone, w.lan, w.net, w.router]) ns?.destroy();
  });

  t('a LAN host opens connections to the camera behind the site router (reachableFrom "lan"), and the camera sees its own address', async () => {
    const got = await expectFlows(w.lan, HOST.camera, []);
    assert.is(got[0], 'camera 192.168.61.2');
  });

  t('a new connection from the LAN to a peer that does not allow it is dropped: the sensor behind the device, the phone', async () => {
    await expectFlows(w.lan, HOST.camera, [...HOST.sensor, peers.phone.ip, peers.phone.ip6]);
  });

  t('the camera reaches the LAN (lanAccess prefixes) and the sensor behind the device (allowAccess covers both networks); not the internet', async () => {
    const got = await expectFlows(w.camera, [...HOST.lan, ...HOST.sensor], HOST.net);
    assert.is(got[0], 'lan 10.93.0.2', 'the LAN sees the camera\'s own address');
  });

  t('the sensor reaches the router\'s tunnel address and nothing it was not given: not the camera (allowAccess is one way), the LAN or the internet', async () => {
    await expectFlows(w.sensor, HOST.tunnel, [...HOST.camera, ...HOST.lan, ...HOST.routerLan, ...HOST.net]);
  });

  t('the phone with allowInternet reaches the internet, masqueraded, but neither the LAN nor the router\'s own addresses', async () => {
    const got = await expectFlows(w.phone.ns, HOST.net, [...HOST.lan, ...HOST.routerLan, ...HOST.routerWan]);
    assert.is(got[0], 'net 203.0.113.1');
  });

  t('a host on the internet cannot open a connection to the camera, the sensor or the phone', async () => {
    await expectFlows(w.net, HOST.routerWan, [...HOST.camera, ...HOST.sensor, peers.phone.ip]);
  });

  t('the filter holds each peer\'s networks as its sources and destinations, as elements', () => {
    assert.match(nftSet('pairs'), /10\.81\.0\.3 \. 10\.81\.0\.2/);
    assert.match(nftSet('pairs_nets'), /10\.81\.0\.3 \. 10\.94\.0\.0\/24/);
    assert.match(nftSet('pairs_nets'), /10\.93\.0\.0\/24 \. 10\.94\.0\.0\/24/);
    assert.match(nftSet('pairs_nets6'), /fd93::\/64 \. fd94::\/64/);
    assert.match(nftSet('reach_lan'), /10\.81\.0\.3/);
    assert.match(nftSet('reach_lan_nets'), /10\.93\.0\.0\/24/);
    assert.match(nftSet('lan_access'), /10\.93\.0\.0\/24 \. 192\.168\.61\.0\/24/);
    assert.match(nftSet('router_nets'), /192\.168\.61\.0\/24/);
    assert.not.match(nftSet('router_nets'), /203\.0\.113/, 'a public WAN subnet is the internet\'s');
    assert.is(wgcpCheck(w.daemon).code, 0);
  });

  t('an element change reads no set back from the kernel: every interval set, networks and prefixes included, is a concatenation', () => {
    // nft 1.0.6 dumps each single-field interval set of the ruleset (netlink GETSETELEM, 0x0a0d)
    // before it applies any element change; `-c` checks the change without making it.
    const said = w.router.exec('nft', ['-c', '--debug=mnl', 'add', 'element', 'inet', 'wgcp', 'internet', '{ 10.81.0.250 }']);
    assert.ok(/\| 0*2561 \| R/.test(said), 'nft\'s netlink messages are shown');
    assert.is((said.match(/\| 0*2573 \| R/g) ?? []).length, 0, 'set element dumps');
    assert.match(nftSet('internet_nets'), /type ipv4_addr \. ipv4_addr/);
  });

  t('changes take effect at once, as element changes: reachableFrom a prefix, lanAccess none, networks moved', async () => {
    const handle = () => /set pairs_nets \{ # handle (\d+)/.exec(w.router.exec('nft', ['-a', 'list', 'table', 'inet', 'wgcp']))?.[1];
    const before = handle();
    await put('site', { reachableFrom: ['192.168.61.3/32', 'fd61::3/128'] });
    await expectFlows(w.lan, HOST.routerLan, HOST.camera);
    await put('site', { reachableFrom: ['192.168.61.0/24', 'fd61::/64'], lanAccess: [] });
    await expectFlows(w.lan, HOST.camera, []);
    await expectFlows(w.camera, HOST.sensor, HOST.lan);
    await put('device', { networks: ['10.95.0.0/24', 'fd94::/64'] });
    assert.not.match(nftSet('pairs_nets'), /10\.94\.0\.0\/24/);
    assert.match(nftSet('pairs_nets'), /10\.93\.0\.0\/24 \. 10\.95\.0\.0\/24/);
    await put('device', { networks: ['10.94.0.0/24', 'fd94::/64'] });
    await expectFlows(w.camera, HOST.sensor, []);
    assert.is(handle(), before, 'the table was never loaded again');
  });

  t('lanAccess outside the router\'s networks and overlapping prefixes are refused with 400 naming the field', async () => {
    for (const [body, field, why] of [
      [{ lanAccess: ['10.200.0.0/24'] }, 'lanAccess', /not inside one of the router's networks/],
      [{ lanAccess: ['192.168.61.0/24', '192.168.61.0/25'] }, 'lanAccess', /overlaps/],
      [{ lanAccess: 'all' }, 'lanAccess', /"lan"/],
      [{ reachableFrom: ['10.1.0.0/16', '10.1.2.0/24'] }, 'reachableFrom', /overlaps/],
      [{ reachableFrom: [42] }, 'reachableFrom', /prefixes/],
    ] as const) {
      const r = await w.daemon.api('PUT', `/api/peers/${peers.phone.id}`, body);
      assert.is(r.status, 400, `${JSON.stringify(body)}: ${r.text}`);
      assert.is(r.json.field, field);
      assert.is(r.json.code, 'WGCP_FIELD_INVALID');
      assert.match(r.json.error, why);
    }
    const ok = await w.daemon.api('PUT', `/api/peers/${peers.phone.id}`, { lanAccess: ['192.168.61.0/25'], reachableFrom: 'lan' });
    assert.is(ok.status, 200, ok.text);
    assert.equal([ok.json.lanAccess, ok.json.reachableFrom], [['192.168.61.0/25'], 'lan']);
  });

  t('a new peer that does not say gets its server\'s lanAccess (none unless the server says); the server\'s is checked as a peer\'s', async () => {
    const bad = await w.daemon.api('PUT', '/api/servers/1', { lanAccess: ['10.200.0.0/24'] });
    assert.is(bad.status, 400, bad.text);
    assert.is(bad.json.field, 'lanAccess');
    const plain = await w.daemon.api('POST', '/api/servers/1/peers', { name: 'plain' });
    assert.equal(plain.json.lanAccess, []);
    const server = await w.daemon.api('PUT', '/api/servers/1', { lanAccess: ['192.168.61.0/24'] });
    assert.is(server.status, 200, server.text);
    assert.equal(server.json.lanAccess, ['192.168.61.0/24']);
    const given = await w.daemon.api('POST', '/api/servers/1/peers', { name: 'given' });
    assert.equal(given.json.lanAccess, ['192.168.61.0/24']);
    const conf = (await w.daemon.api('GET', `/api/peers/${given.json.id}/config`)).text;
    assert.match(conf, /\nAllowedIPs = 10\.81\.0\.0\/24, fd81::\/64, 192\.168\.61\.0\/24\n/, 'split routes the LAN it may reach');
    const own = await w.daemon.api('POST', '/api/servers/1/peers', { name: 'own', lanAccess: [] });
    assert.equal(own.json.lanAccess, []);
    assert.equal((await w.daemon.api('GET', `/api/peers/${plain.json.id}`)).json.lanAccess, [], 'a peer made before keeps its own');
  });
}

t.run();
