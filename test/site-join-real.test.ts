// Site to site with two real wgcp routers: router A (wgcpd, a forward-mode server, its device
// listener over HTTPS, a LAN host behind it) and router B (wgcpd, a LAN host behind it), each
// in its namespace with wireguard-go, joined by a veth as by the internet. `wgcp join` on B,
// with a registration token of A's server, makes B a peer of A carrying B's LAN, and a site
// link on B routing A's subnet and LAN: hosts of the two LANs reach each other both ways
// (the joined peer's lanAccess and reachableFrom are A's LAN), TCP and ICMP, IPv4 and IPv6.
// B's own table judges what comes in through the link: A's side reaches B's LAN (the link's
// reachableFrom, "lan" by default), not B's own addresses; narrowed, only replies pass.
// The link comes back after B's wgcpd restarts; drift of it (a route, its addresses, its
// peer, down, deleted) is put right by B's reconciler; the same link is made from a .conf A
// hands out.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { canRunAsRoot } from './helpers/root';
import { forwarding, hostBehind, linkNamespaces, Netns, pings } from './helpers/netns';
import { startNsDaemon, type NsDaemon } from './helpers/ns-daemon';
import { tempDir } from './helpers/daemon';
import { eventually } from './helpers/receiver';
import { reach, reachBeside, reachSoon, serveTcp, WgClient } from './helpers/wg-client';

const t = suite('site to site: wgcp join between two real routers');
const CLI = path.join(__dirname, '../src/cli/main.js');
const A_WAN = '198.51.100.1';
const B_NETS = ['192.168.71.0/24', 'fd71::/64'];
let nsA: Netns;
let nsB: Netns;
let lanA: Netns;
let lanB: Netns;
let a: NsDaemon;
let b: NsDaemon;
let bDataDir: string;
let certFile: string;
let serverId: number;

/** `wgcp` on router B, in its namespaces: exit code and output. */
function wgcpOnB(args: string[]): { code: number; out: string } {
  try {
    return { code: 0, out: b.exec(process.execPath, [CLI, '--data-dir', bDataDir, ...args]) };
  } catch (err) {
    const e = err as { status: number; stdout: string; stderr: string };
    return { code: e.status, out: `${e.stdout}${e.stderr}` };
  }
}
const newToken = async () => (await a.api('POST', `/api/servers/${serverId}/tokens`)).json.token as string;
const joinWithToken = async (extra: string[] = []) => wgcpOnB(['join', `https://${A_WAN}:8443`, '--token', await newToken(), '--networks', B_NETS.join(','), '--name', 'branch', '--ca-file', certFile, ...extra]);

async function lansReachEachOther(): Promise<void> {
  assert.match((await reachSoon(lanA, '192.168.71.2', 7300)) ?? '', /^lan-b 192\.168\.61\.2$/, 'A\'s LAN host to B\'s, TCP over IPv4, its own address seen');
  assert.match((await reachSoon(lanA, 'fd71::2', 7300)) ?? '', /^lan-b fd61::2$/, 'TCP over IPv6');
  assert.ok(pings(lanA, '192.168.71.2'), 'ping over IPv4');
  assert.ok(pings(lanA, 'fd71::2'), 'ping over IPv6');
  assert.match((await reachSoon(lanB, '192.168.61.2', 7302)) ?? '', /^lan-a 192\.168\.71\.2$/, 'B\'s LAN host to A\'s, TCP over IPv4');
  assert.match((await reachSoon(lanB, 'fd61::2', 7302)) ?? '', /^lan-a fd71::2$/, 'TCP over IPv6');
  assert.ok(pings(lanB, '192.168.61.2'), 'ping over IPv4');
  assert.match((await reachSoon(lanB, '10.81.0.1', 7301)) ?? '', /^router-a 192\.168\.71\.2$/, 'B\'s LAN host to A\'s tunnel address, through the link');
}

/** From A's LAN, B's router itself (its LAN addresses) is closed while B's LAN host, over the same link, answers. */
async function routerBClosed(): Promise<void> {
  assert.is(await reachBeside(lanA, ['192.168.71.1', 7303], ['192.168.71.2', 7300]), null, 'B\'s own LAN address, IPv4');
  assert.is(await reachBeside(lanA, ['fd71::1', 7303], ['fd71::2', 7300]), null, 'and IPv6');
}

if (canRunAsRoot('site to site', ['ip', 'nft', 'wg', 'wireguard-go', 'openssl', 'ping', 'sysctl', 'nsenter'])) {
  t.before(async () => {
    nsA = new Netns('sja');
    nsB = new Netns('sjb');
    const wan = linkNamespaces(nsA, `${A_WAN}/24`, nsB, '198.51.100.2/24');
    // Each router's default route leaves by its WAN (A's upstream is elsewhere on that link).
    nsA.exec('ip', ['route', 'add', 'default', 'via', '198.51.100.254', 'dev', wan.aIf, 'onlink']);
    nsB.exec('ip', ['route', 'add', 'default', 'via', A_WAN]);
    forwarding(nsA);
    forwarding(nsB);
    lanA = hostBehind(nsA, 'sjla', '192.168.61', 'fd61');
    lanB = hostBehind(nsB, 'sjlb', '192.168.71', 'fd71');
    await serveTcp(lanB, 7300, 'lan-b');
    await serveTcp(nsA, 7301, 'router-a');
    await serveTcp(lanA, 7302, 'lan-a');
    await serveTcp(nsB, 7303, 'router-b');
    const certDir = tempDir('wgcp-site-tls-');
    certFile = path.join(certDir, 'cert.pem');
    const keyFile = path.join(certDir, 'key.pem');
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2',
      '-subj', `/CN=${A_WAN}`, '-addext', `subjectAltName=IP:${A_WAN}`, '-keyout', keyFile, '-out', certFile], { stdio: 'ignore' });
    a = await startNsDaemon(nsA, { env: { WGCP_DEVICE_LISTEN: `${A_WAN}:8443`, WGCP_TLS_CERT: certFile, WGCP_TLS_KEY: keyFile } });
    const server = await a.api('POST', '/api/servers', { name: 'hq', endpoint: `${A_WAN}:51820`, mode: 'forward', address: '10.81.0.1/24', address6: 'fd81::1/64' });
    assert.is(server.status, 201, server.text);
    serverId = server.json.id;
    bDataDir = tempDir('wgcp-site-b-');
    b = await startNsDaemon(nsB, { dataDir: bDataDir });
  });

  t.after(async () => {
    await b?.stop();
    await a?.stop();
    for (const ns of [lanA, lanB, nsB, nsA]) ns?.destroy();
  });

  t('wgcp join on B makes B a peer of A carrying B\'s LAN, and a link on B routing A\'s subnet and LAN', async () => {
    const r = await joinWithToken();
    assert.is(r.code, 0, r.out);
    assert.match(r.out, /site link 1 "branch" up on wgcps1: .*; the other side may open connections to this router's LAN\n$/);
    const peers = (await a.api('GET', `/api/servers/${serverId}/peers`)).json as { name: string; networks: string[]; clientAllowedIPs: string[]; lanAccess: unknown; reachableFrom: unknown }[];
    const site = peers.find((p) => p.name === 'site-branch')!;
    assert.ok(site, 'the peer on A');
    assert.equal(site.networks, B_NETS);
    assert.equal([site.lanAccess, site.reachableFrom], ['lan', 'lan'], 'linked both ways with A\'s networks');
    assert.equal(site.clientAllowedIPs, ['10.81.0.0/24', 'fd81::/64', '192.168.61.0/24', 'fd61::/64'], 'A\'s subnets and LAN, not its WAN');
    const links = (await b.api('GET', '/api/site-links')).json;
    assert.equal(links.map((l: { routes: string[] }) => l.routes), [site.clientAllowedIPs]);
    assert.not.ok('privateKey' in links[0] || 'presharedKey' in links[0], 'no key shown');
    assert.match(b.exec('ip', ['route', 'show', 'dev', 'wgcps1']), /^192\.168\.61\.0\/24 /m);
    assert.match(b.exec('ip', ['-6', 'route', 'show', 'dev', 'wgcps1']), /^fd61::\/64 /m);
  });

  t('the LAN hosts reach each other both ways, TCP and ICMP, both families, each seeing the other\'s own address', async () => {
    await lansReachEachOther();
  });

  t('B\'s own table judges the link: A\'s side reaches B\'s LAN but not B\'s own addresses, TCP and ICMP', async () => {
    await routerBClosed();
    assert.not.ok(pings(lanA, '192.168.71.1'), 'no ping of B itself');
    assert.ok(pings(lanA, '192.168.71.2'), 'while B\'s LAN host answers');
    assert.match((await reachSoon(nsA, '10.81.0.1', 7301)) ?? '', /^router-a /, 'B\'s own traffic out and its replies back pass');
  });

  t('narrowed to nothing, A\'s side opens nothing on B (replies still pass); a prefix opens what it names, B itself too', async () => {
    const [link] = (await b.api('GET', '/api/site-links')).json;
    const reachable = async (from: unknown) => {
      const r = await b.api('PUT', `/api/site-links/${link.id}`, { reachableFrom: from });
      assert.is(r.status, 200, r.text);
    };
    await reachable([]);
    assert.match((await reachSoon(lanB, '192.168.61.2', 7302)) ?? '', /^lan-a 192\.168\.71\.2$/, 'B\'s LAN host still opens connections to A\'s');
    assert.is(await reach(lanA, '192.168.71.2', 7300), null, 'A\'s LAN host cannot open one to B\'s, IPv4');
    assert.is(await reach(lanA, 'fd71::2', 7300), null, 'nor IPv6');
    await reachable(['192.168.71.1/32', 'fd71::2/128']);
    assert.match((await reachSoon(lanA, '192.168.71.1', 7303)) ?? '', /^router-b 192\.168\.61\.2$/, 'B itself, named');
    assert.match((await reachSoon(lanA, 'fd71::2', 7300)) ?? '', /^lan-b fd61::2$/, 'B\'s LAN host, named for IPv6');
    assert.is(await reach(lanA, '192.168.71.2', 7300), null, 'not named for IPv4');
    await reachable('lan');
    await lansReachEachOther();
    await routerBClosed();
  });

  t('the link comes back when B\'s wgcpd starts again', async () => {
    await b.stop();
    assert.is(await reach(lanA, '192.168.71.2', 7300), null, 'down while B is stopped');
    b = await startNsDaemon(nsB, { dataDir: bDataDir });
    assert.match(b.exec('ip', ['route', 'show', 'dev', 'wgcps1']), /^192\.168\.61\.0\/24 /m);
    await lansReachEachOther();
    await routerBClosed();
  });

  t('drift of the link behind wgcp\'s back is put right by B\'s reconciler, counted and audited: a route, its addresses, its peer, set down', async () => {
    const repairs = async () => Number(/^wgcp_kernel_drift_repairs_total\{kind="siteLink"\} (\d+)$/m.exec((await b.api('GET', '/metrics')).text)?.[1] ?? NaN);
    const audited = async () => ((await b.api('GET', '/api/audit?actor=reconciler&action=kernel.repair')).json.entries as { summary: Record<string, unknown> }[]).filter((e) => e.summary.siteLink).length;
    const [counted, rows] = [await repairs(), await audited()];
    const routes = () => b.exec('ip', ['route', 'show', 'dev', 'wgcps1']);
    const [link] = (await b.api('GET', '/api/site-links')).json;
    const drifts: [string, string[], () => boolean][] = [
      ['a route', ['ip', 'route', 'del', '192.168.61.0/24', 'dev', 'wgcps1'], () => /^192\.168\.61\.0\/24 /m.test(routes())],
      ['its addresses', ['ip', 'address', 'flush', 'dev', 'wgcps1'], () => /inet 10\.81\.0\.2\/32/.test(b.exec('ip', ['address', 'show', 'dev', 'wgcps1']))],
      ['its peer', ['wg', 'set', 'wgcps1', 'peer', link.peerPublicKey, 'remove'], () => b.exec('wg', ['show', 'wgcps1', 'peers']).includes(link.peerPublicKey)],
      ['set down', ['ip', 'link', 'set', 'dev', 'wgcps1', 'down'], () => /,UP/.test(b.exec('ip', ['link', 'show', 'dev', 'wgcps1'])) && /^192\.168\.61\.0\/24 /m.test(routes())],
    ];
    for (const [what, [cmd, ...args], repaired] of drifts) {
      b.exec(cmd, args);
      await eventually(`${what} put right`, () => (repaired() ? true : undefined));
    }
    await lansReachEachOther();
    assert.ok(await repairs() >= counted + drifts.length, 'counted as siteLink repairs');
    assert.ok(await audited() >= rows + 1, 'audited as the reconciler\'s');
    assert.match(b.output(), /kernel drift repaired/);
    assert.match((await b.api('GET', '/metrics')).text, /^wgcp_kernel_drift_repairs_total\{kind="nft"\} 0$/m, 'the link\'s filter, read back, is what wgcp holds: never "repaired"');
  });

  t('the link\'s interface deleted by hand comes back (wireguard-go\'s supervisor), filtered as before', async () => {
    b.exec('ip', ['link', 'del', 'dev', 'wgcps1']);
    await lansReachEachOther();
    await routerBClosed();
  });

  t('B\'s own peers do not reach A\'s side through the link, not even with allowInternet (A would take them for B)', async () => {
    const server = await b.api('POST', '/api/servers', { name: 'branch', endpoint: '198.51.100.2:51820', mode: 'forward', address: '10.91.0.1/24' });
    assert.is(server.status, 201, server.text);
    const phone = await b.api('POST', `/api/servers/${server.json.id}/peers`, { name: 'phone', allowInternet: true, clientAllowedIPs: 'full' });
    assert.is(phone.status, 201, phone.text);
    const client = new WgClient('sjp', nsB, 9, '198.51.100.2');
    try {
      await client.up((await b.api('GET', `/api/peers/${phone.json.id}/config`)).text, ['10.91.0.0/24', '192.168.61.0/24', '198.51.100.0/24']);
      assert.is(await reachBeside(client.ns, ['192.168.61.2', 7302], ['198.51.100.1', 7301]), null, 'A\'s LAN closed while the internet (A\'s WAN side) answers');
    } finally {
      client.destroy();
      assert.is((await b.api('DELETE', `/api/servers/${server.json.id}`)).status, 204);
    }
  });

  t('a spent token, a LAN that overlaps A\'s, or routes that overlap B\'s own networks are refused; nothing is left behind', async () => {
    const token = await newToken();
    const typo = wgcpOnB(['join', `https://${A_WAN}:8443`, '--token', token, '--networks', '192.168.72.0/24', '--ca-file', certFile, '--reachable-from', '192.168.71.300/32']);
    assert.is(typo.code, 2, typo.out);
    assert.match(typo.out, /--reachable-from takes lan, none, or prefixes .*192\.168\.71\.300\/32 is not a prefix/);
    // The same token still answers below (its refusal is A's, not "token already used"): the typo spent nothing.
    const first = wgcpOnB(['join', `https://${A_WAN}:8443`, '--token', token, '--networks', '192.168.61.0/25', '--ca-file', certFile]);
    assert.is(first.code, 1, first.out);
    assert.match(first.out, /refused the join: 400 .*192\.168\.61\.0\/25 overlaps the router's own network 192\.168\.61\.0\/24/);
    // A takes it (the refusal spent nothing), B does not: its link to A routes the same already.
    const again = wgcpOnB(['join', `https://${A_WAN}:8443`, '--token', token, '--networks', '192.168.72.0/24', '--ca-file', certFile]);
    assert.is(again.code, 1, again.out);
    const held = /wgcpd refused the link: routes 10\.81\.0\.0\/24 overlaps 10\.81\.0\.0\/24, routed into site link 1; the other router holds this router as its peer (\d+)/.exec(again.out);
    assert.ok(held, again.out);
    assert.is((await a.api('DELETE', `/api/peers/${held![1]}`)).status, 204, 'the peer B names is on A');
    const spent = wgcpOnB(['join', `https://${A_WAN}:8443`, '--token', token, '--networks', '192.168.73.0/24', '--ca-file', certFile]);
    assert.match(spent.out, /refused the join: 400 token already used/);
    const [link] = (await b.api('GET', '/api/site-links')).json;
    const own = await b.api('POST', '/api/site-links', { name: 'x', privateKey: link.publicKey, address: '10.81.0.9',
      peerPublicKey: link.peerPublicKey, presharedKey: link.publicKey, endpoint: `${A_WAN}:51820`, routes: ['198.51.100.0/25'] });
    assert.is(own.status, 400, own.text);
    assert.is(own.json.field, 'routes');
    assert.match(own.json.error, /overlaps this router's own network 198\.51\.100\.0\/24/);
    assert.is((await b.api('GET', '/api/site-links')).json.length, 1, 'only the first link');
  });

  t('a .conf that A hands out for a peer with B\'s LAN makes the same link, filtered as --reachable-from says', async () => {
    for (const l of (await b.api('GET', '/api/site-links')).json) assert.is((await b.api('DELETE', `/api/site-links/${l.id}`)).status, 204);
    for (const p of (await a.api('GET', `/api/servers/${serverId}/peers`)).json) assert.is((await a.api('DELETE', `/api/peers/${p.id}`)).status, 204);
    assert.is(await reach(lanA, '192.168.71.2', 7300), null, 'unlinked');
    const peer = await a.api('POST', `/api/servers/${serverId}/peers`, { name: 'branch', networks: B_NETS, lanAccess: 'lan', reachableFrom: 'lan', clientAllowedIPs: ['10.81.0.0/24', 'fd81::/64', '192.168.61.0/24', 'fd61::/64'] });
    assert.is(peer.status, 201, peer.text);
    const file = path.join(tempDir('wgcp-site-conf-'), 'branch.conf');
    fs.writeFileSync(file, (await a.api('GET', `/api/peers/${peer.json.id}/config`)).text, { mode: 0o600 });
    const r = wgcpOnB(['join', '--conf', file, '--name', 'branch', '--reachable-from', 'none']);
    assert.is(r.code, 0, r.out);
    assert.match(r.out, /the other side may open connections to nothing \(replies only\)/);
    const [link] = (await b.api('GET', '/api/site-links')).json;
    assert.equal(link.reachableFrom, [], 'held as the API\'s []');
    assert.match((await reachSoon(lanB, '192.168.61.2', 7302)) ?? '', /^lan-a 192\.168\.71\.2$/, 'B\'s LAN host opens connections to A\'s');
    assert.is(await reach(lanA, '192.168.71.2', 7300), null, 'A\'s LAN host cannot open one to B\'s');
    assert.is((await b.api('PUT', `/api/site-links/${link.id}`, { reachableFrom: 'lan' })).status, 200);
    await lansReachEachOther();
  });
}

t.run();
