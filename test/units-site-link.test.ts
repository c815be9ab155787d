// Site links without a kernel: what `wgcp join --conf` reads from a .conf, what `wg setconf`
// is fed for a link, and the rules a link's routes keep on the router that holds it (a
// daemon with its kernel backend off: the rows, the answers and the refusals).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { linkFromConf } from '../src/cli/join';
import { renderSiteLinkConf, siteLinkAddresses } from '../src/wg/site-link-conf';
import { generateKeyPair, generatePresharedKey } from '../src/wg/keys';
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

t('the link\'s wg text: its key, the other router as its one peer at its endpoint with a keepalive; host addresses only', () => {
  const link = { id: 1, name: 'b', interface: 'wgcps1', privateKey: mine.privateKey, publicKey: mine.publicKey, address: '10.81.0.2', address6: 'fd81::2',
    peerPublicKey: theirs.publicKey, presharedKey: psk, endpoint: '198.51.100.1:51820', routes: ['10.81.0.0/24', 'fd61::/64'], createdAt: '' };
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

t.run();
