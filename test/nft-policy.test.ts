import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { fullPolicy, peerSlice } from '../src/nft/policy';
import { ServerModel } from '../src/kernel/model';
import { fixturePeer, fixtureServer } from './helpers/kernel-fixtures';

const t = suite('nft policy slices');

function world() {
  const server = fixtureServer(1);
  const a = fixturePeer(1, server, 1, { allowAccess: [2], allowInternet: true });
  const b = fixturePeer(2, server, 2);
  const c = fixturePeer(3, server, 3, { allowAccess: [1, 2] });
  return { server, a, b, c, model: new ServerModel(server, [a, b, c], [{ id: 7, serverId: 1, protocol: 'tcp', listenPort: 8080, targetIp: b.ip, targetIp6: b.ip6, targetPort: 80 }]) };
}

t('a forward server puts its interface, address, pairs, internet peers and forwards in the policy', () => {
  const { model } = world();
  const p = fullPolicy([model]);
  assert.equal([...p.tunnels], ['"wgcp1"']);
  assert.equal([...p.serverAddrs], ['"wgcp1" . 10.1.0.1']);
  assert.equal([...p.pairs].sort(), ['10.1.0.2 . 10.1.0.3', '10.1.0.4 . 10.1.0.2', '10.1.0.4 . 10.1.0.3']);
  assert.equal([...p.internet], ['10.1.0.2']);
  assert.equal([...p.forwards], [['tcp . 8080', '10.1.0.3 . 80']]);
});

t('a standalone server contributes only its interface, to be kept apart from the tunnels', () => {
  const { model, server } = world();
  const p = fullPolicy([model.withServer({ ...server, mode: 'standalone' })]);
  assert.is(p.tunnels.size + p.serverAddrs.size + p.pairs.size + p.internet.size + p.forwards.size, 0);
  assert.equal([...p.standalone], [`"${server.interface}"`]);
});

t('a peer slice holds the pairs it opens, the pairs that name it, and its internet flag', () => {
  const { model, server, a } = world();
  const s = peerSlice(server, a, (id) => model.peers.get(id), model.referrersOf(a.id));
  assert.equal([...s.pairs].sort(), ['10.1.0.2 . 10.1.0.3', '10.1.0.4 . 10.1.0.2']);
  assert.equal([...s.internet], ['10.1.0.2']);
});

t('disabled peers hold no elements and open nothing to others', () => {
  const { model, server, a } = world();
  model.putPeer({ ...model.peers.get(3)!, enabled: false });
  const off = { ...a, enabled: false };
  assert.is(peerSlice(server, off, (id) => model.peers.get(id), model.referrersOf(1)).pairs.size, 0);
  assert.equal([...peerSlice(server, a, (id) => model.peers.get(id), model.referrersOf(1)).pairs], ['10.1.0.2 . 10.1.0.3']);
});

t('deleting a peer in the model also forgets the allowAccess entries naming it', () => {
  const { model } = world();
  model.deletePeer(2);
  assert.equal(model.peers.get(1)!.allowAccess, []);
  assert.equal(model.peers.get(3)!.allowAccess, [1]);
  assert.equal([...model.referrersOf(2)], []);
  assert.equal([...fullPolicy([model]).pairs], ['10.1.0.4 . 10.1.0.2']);
});

t('a peer stands for its address and its networks: in pairs both ways, internet, lanAccess and reachableFrom, per family', () => {
  const server = fixtureServer(1);
  const site = fixturePeer(1, server, 1, { networks: ['10.9.0.0/24', 'fd09::/64'], allowAccess: [2], allowInternet: true, lanAccess: ['192.168.1.0/24'], reachableFrom: 'lan' });
  const dev = fixturePeer(2, server, 2, { networks: ['10.8.5.0/24'], lanAccess: 'lan', reachableFrom: ['192.168.1.7/32', 'fd01::/64'] });
  const model = new ServerModel(server, [site, dev]);
  const s = peerSlice(server, site, (id) => model.peers.get(id), model.referrersOf(site.id));
  // Addresses alone stay in the exact sets; an element with a prefix goes to the interval twin.
  assert.equal([...s.pairs], ['10.1.0.2 . 10.1.0.3']);
  assert.equal([...s.pairsNets].sort(), ['10.1.0.2 . 10.8.5.0/24', '10.9.0.0/24 . 10.1.0.3', '10.9.0.0/24 . 10.8.5.0/24']);
  assert.equal([...s.pairs6], ['fd77:0:1::2 . fd77:0:1::3']);
  assert.equal([...s.pairsNets6], ['fd09::/64 . fd77:0:1::3']);
  assert.equal([[...s.internet], [...s.internetNets]], [['10.1.0.2'], ['10.9.0.0/24']]);
  assert.equal([...s.lanAccess], ['10.1.0.2 . 192.168.1.0/24', '10.9.0.0/24 . 192.168.1.0/24']);
  assert.equal([...s.lanAccess6], [], 'a v4 prefix opens nothing to IPv6');
  assert.equal([[...s.reachLan], [...s.reachLanNets]], [['10.1.0.2'], ['10.9.0.0/24']]);
  assert.equal([[...s.reachLan6], [...s.reachLanNets6]], [['fd77:0:1::2'], ['fd09::/64']]);
  // The device's slice holds the site's pairs towards it (its referrer), and its own reach.
  const d = peerSlice(server, dev, (id) => model.peers.get(id), model.referrersOf(dev.id));
  assert.ok(d.pairsNets.has('10.9.0.0/24 . 10.8.5.0/24'));
  assert.equal([[...d.lanAll], [...d.lanAllNets]], [['10.1.0.3'], ['10.8.5.0/24']]);
  assert.equal([...d.reachFrom], ['192.168.1.7 . 10.1.0.3', '192.168.1.7 . 10.8.5.0/24']);
  assert.equal([...d.reachFrom6], ['fd01::/64 . fd77:0:1::3']);
});

t('client text that is not an address, port or interface name never reaches the policy', () => {
  const server = fixtureServer(1);
  const bad = fixturePeer(1, server, 1, { ip: '10.1.0.2 }; flush ruleset; {', allowInternet: true });
  assert.throws(() => fullPolicy([new ServerModel(server, [bad])]), /not an IPv4 address/);
  assert.throws(() => fullPolicy([new ServerModel({ ...server, interface: 'x" ; flush' })]), /not allowed/);
  assert.throws(() => fullPolicy([new ServerModel(server, [], [{ id: 1, serverId: 1, protocol: 'icmp' as 'tcp', listenPort: 1, targetIp: '10.1.0.2', targetIp6: null, targetPort: 2 }])]), /tcp or udp/);
  assert.throws(() => fullPolicy([new ServerModel(server, [], [{ id: 1, serverId: 1, protocol: 'tcp', listenPort: 70000, targetIp: '10.1.0.2', targetIp6: null, targetPort: 2 }])]), /not a port/);
});

t.run();
