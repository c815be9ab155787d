// Site links without a kernel: what `wgcp join --conf` reads from a .conf, what `wg setconf`
// is fed for a link, and the rules a link's routes keep on the router that holds it (a
// daemon with its kernel backend off: the rows, the answers and the refusals).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { linkFromConf, readReachableFrom } from '../src/cli/join';
import { renderSiteLinkConf, siteLinkAddresses } from '../src/wg/site-link-conf';
import { generateKeyPair, generatePresharedKey } from '../src/wg/keys';
import { siteLinkSlice } from '../src/nft/site-link-policy';
import { siteLinkConfDrift } from '../src/kernel/reconcile-site-links';
import { emptyElements } from '../src/nft/elements';
import { renderTable } from '../src/nft/render';
import { client, startTestDaemon, type TestDaemon } from './helpers/daemon';

const t = suite('site links: .conf, wg text and route rules');
const mine = generateKeyPair();
const theirs = generateKeyPair();
const psk = generatePresharedKey();
let d: TestDaemon;
t.before(async () => { d = await startTestDaemon({ options: { events: { schedule: false } } }); });
t.after(async () => { await d.stop(); });

const conf = (allowed: string, peers = 1) => `[Interface]\nPrivateKey = ${mine.privateKey}\nAddress = 10.81.0.2/32, fd81::2/128\nDNS = 10.81.0.1\n`
  + `\n[Peer]\nPublicKey = ${theirs.publicKey}\nPresharedKey = ${psk}\nAllowedIPs = ${allowed}\nEndpoint = hq.example.com:51820\nPersistentKeepalive = 25\n`.repeat(peers);

t('a peer\'s .conf gives the link: its key and addresses, the server\'s key and endpoint, AllowedIPs as routes', () => {
  assert.equal(linkFromConf(conf('10.81.0.0/24, 192.168.61.0/24'), 'branch'), {
    name: 'branch', privateKey: mine.privateKey, address: '10.81.0.2', address6: 'fd81::2', peerPublicKey: theirs.publicKey,
    presharedKey: psk, endpoint: 'hq.example.com:51820', routes: ['10.81.0.0/24', '192.168.61.0/24'],
  });
});

t('a .conf that routes everything, or holds other than one peer, is refused with why', () => {
  assert.throws(() => linkFromConf(conf('0.0.0.0/0, ::/0'), 'x'), /default route/);
  assert.throws(() => linkFromConf(conf('10.81.0.0/24', 2), 'x'), /exactly one \[Peer\]/);
});

t('wgcp join --reachable-from: lan, none (replies only) or comma-separated prefixes; anything else refused with why, before a token is spent', () => {
  assert.is(readReachableFrom(undefined), undefined, 'left out: the link\'s default');
  assert.is(readReachableFrom('lan'), 'lan');
  assert.equal(readReachableFrom('none'), []);
  assert.equal(readReachableFrom('192.168.2.10/32, fd02::/64'), ['192.168.2.10/32', 'fd02::/64']);
  assert.throws(() => readReachableFrom('192.168.2.10'), /--reachable-from takes lan, none, or prefixes .*\(192\.168\.2\.10 is not a prefix\)/);
  assert.throws(() => readReachableFrom('10.0.0.0/33'), /10\.0\.0\.0\/33 is not a prefix/);
  assert.throws(() => readReachableFrom('LAN'), /is not a prefix/);
  assert.throws(() => readReachableFrom(','), /--reachable-from takes/);
});

t('the link\'s wg text: its key, the other router as its one peer at its endpoint with a keepalive; host addresses only', () => {
  const link = { id: 1, name: 'b', interface: 'wgcps1', privateKey: mine.privateKey, publicKey: mine.publicKey, address: '10.81.0.2', address6: 'fd81::2',
    peerPublicKey: theirs.publicKey, presharedKey: psk, endpoint: '198.51.100.1:51820', routes: ['10.81.0.0/24', 'fd61::/64'], reachableFrom: 'lan' as const, createdAt: '' };
  const text = renderSiteLinkConf(link);
  assert.match(text, `PrivateKey = ${mine.privateKey}`);
  assert.match(text, /Endpoint = 198\.51\.100\.1:51820\nAllowedIPs = 10\.81\.0\.0\/24, fd61::\/64\nPersistentKeepalive = 25/);
  assert.not.match(text, /ListenPort/);
  assert.equal(siteLinkAddresses(link), ['10.81.0.2/32', 'fd81::2/128']);
  assert.throws(() => renderSiteLinkConf({ ...link, endpoint: 'h:1\nPostUp = x' }), /cannot be used/);
});

t('routes that overlap what the router routes already are refused naming routes; a good link is kept and shown without keys', async () => {
  const api = client(d);
  assert.is((await api.post('/api/servers', { name: 's', endpoint: 'vpn.example.com:51820', mode: 'forward', address: '10.90.0.1/24' })).status, 201);
  const body = (routes: unknown) => ({ name: 'hq', privateKey: mine.privateKey, address: '10.81.0.2', peerPublicKey: theirs.publicKey, presharedKey: psk, endpoint: 'hq.example.com:51820', routes });
  for (const [routes, why] of [
    [['0.0.0.0/0'], /default route/],
    [['10.90.0.0/16'], /overlaps the subnet 10\.90\.0\.1\/24 of server/],
    [['192.168.61.0/24', '192.168.61.128/25'], /given too/],
    [[], /1 to 64 prefixes/],
  ] as const) {
    const r = await api.post('/api/site-links', body(routes));
    assert.is(r.status, 400, r.text);
    assert.is(r.json.field, 'routes');
    assert.match(r.json.error, why);
  }
  const made = await api.post('/api/site-links', body(['10.81.0.0/24', '192.168.61.0/24']));
  assert.is(made.status, 201, made.text);
  assert.is(made.json.interface, `wgcps${made.json.id}`);
  assert.is(made.json.publicKey, mine.publicKey, 'its public key, from its private one');
  const second = await api.post('/api/site-links', body(['192.168.61.0/25']));
  assert.match(second.json.error, /overlaps 192\.168\.61\.0\/24, routed into site link/);
  const listed = (await api.get('/api/site-links')).json;
  assert.is(listed.length, 1);
  assert.not.ok(JSON.stringify(listed).includes(mine.privateKey) || JSON.stringify(listed).includes(psk), 'no private or preshared key shown');
  assert.is((await api.del(`/api/site-links/${made.json.id}`)).status, 204);
  assert.is((await api.del(`/api/site-links/${made.json.id}`)).status, 404);
});

t('a link\'s filter: its interface judged; "lan" opens this router\'s networks, prefixes open what they name, [] only replies', () => {
  const lan = siteLinkSlice({ interface: 'wgcps1', reachableFrom: 'lan' });
  assert.equal([[...lan.siteLinks], [...lan.siteReachLan], [...lan.siteReach]], [['"wgcps1"'], ['"wgcps1"'], []]);
  const some = siteLinkSlice({ interface: 'wgcps2', reachableFrom: ['192.168.71.5/32', '10.91.0.0/24', 'fd71::/64'] });
  assert.equal([[...some.siteReachLan], [...some.siteReach], [...some.siteReach6]], [[], ['"wgcps2" . 192.168.71.5', '"wgcps2" . 10.91.0.0/24'], ['"wgcps2" . fd71::/64']]);
  const none = siteLinkSlice({ interface: 'wgcps3', reachableFrom: [] });
  assert.equal([[...none.siteLinks], none.siteReachLan.size + none.siteReach.size + none.siteReach6.size], [['"wgcps3"'], 0]);
  const text = renderTable(emptyElements());
  const chain = (name: string) => new RegExp(`chain ${name} \\{([^}]*)\\}`).exec(text)![1].trim().split('\n').map((l) => l.trim());
  assert.ok(chain('input').includes('iifname @site_links jump site_input'));
  assert.equal(chain('site_input'), ['ct state established,related accept', 'iifname . ip daddr @site_reach accept', 'iifname . ip6 daddr @site_reach6 accept', 'drop']);
  assert.equal(chain('site_forward'), ['ct state established,related accept', 'iifname @site_reach_lan ip daddr . ip daddr @router_nets accept',
    'iifname @site_reach_lan ip6 daddr . ip6 daddr @router_nets6 accept', 'iifname . ip daddr @site_reach accept', 'iifname . ip6 daddr @site_reach6 accept', 'drop']);
});

t('a link\'s wg dump against its row: its key, its one peer\'s key, preshared key, allowed IPs and keepalive; the endpoint is the other side\'s', () => {
  const link = { id: 1, name: 'b', interface: 'wgcps1', privateKey: mine.privateKey, publicKey: mine.publicKey, address: '10.81.0.2', address6: null,
    peerPublicKey: theirs.publicKey, presharedKey: psk, endpoint: 'hq.example.com:51820', routes: ['10.81.0.0/24', 'fd61::/64'], reachableFrom: 'lan' as const, createdAt: '' };
  const dump = (o: { key?: string; peer?: string; psk?: string; allowed?: string; keepalive?: string; endpoint?: string } = {}) => `${o.key ?? mine.privateKey}\t${mine.publicKey}\t40000\toff\n`
    + (o.peer === '' ? '' : `${o.peer ?? theirs.publicKey}\t${o.psk ?? psk}\t${o.endpoint ?? '198.51.100.1:51820'}\t${o.allowed ?? 'fd61::/64,10.81.0.0/24'}\t0\t0\t0\t${o.keepalive ?? '25'}\n`);
  assert.equal(siteLinkConfDrift(dump(), link), [], 'the same, allowed IPs in any order');
  assert.equal(siteLinkConfDrift(dump({ endpoint: '203.0.113.7:4444' }), link), [], 'a roamed endpoint is no drift');
  assert.equal(siteLinkConfDrift(dump({ key: theirs.privateKey }), link), ['its key']);
  assert.equal(siteLinkConfDrift(dump({ peer: '' }), link), ['its peer']);
  assert.equal(siteLinkConfDrift(dump({ psk: '(none)', allowed: '10.81.0.0/24', keepalive: 'off' }), link), ['its preshared key', 'its allowed IPs', 'its keepalive']);
});

t('a link\'s reachableFrom is "lan" unless given, changed in place, and refused when its prefixes overlap', async () => {
  const api = client(d);
  const made = await api.post('/api/site-links', { name: 'hq', privateKey: mine.privateKey, address: '10.81.0.2', peerPublicKey: theirs.publicKey, presharedKey: psk, endpoint: 'hq.example.com:51820', routes: ['10.82.0.0/24'] });
  assert.is(made.status, 201, made.text);
  assert.is(made.json.reachableFrom, 'lan');
  const narrowed = await api.put(`/api/site-links/${made.json.id}`, { reachableFrom: ['192.168.71.5/24'] });
  assert.is(narrowed.status, 200, narrowed.text);
  assert.equal(narrowed.json.reachableFrom, ['192.168.71.0/24'], 'kept as a network');
  assert.equal((await api.get('/api/site-links')).json[0].reachableFrom, ['192.168.71.0/24']);
  const bad = await api.put(`/api/site-links/${made.json.id}`, { reachableFrom: ['192.168.71.0/24', '192.168.71.0/25'] });
  assert.is(bad.status, 400);
  assert.is(bad.json.field, 'reachableFrom');
  assert.is((await api.put(`/api/site-links/${made.json.id}`, {})).status, 400);
  assert.is((await api.put('/api/site-links/99', { reachableFrom: [] })).status, 404);
  assert.is((await api.del(`/api/site-links/${made.json.id}`)).status, 204);
});

t.run();
