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

t('client text that is not an address, port or interface name never reaches the policy', () => {
  const server = fixtureServer(1);
  const bad = fixturePeer(1, server, 1, { ip: '10.1.0.2 }; flush ruleset; {', allowInternet: true });
  assert.throws(() => fullPolicy([new ServerModel(server, [bad])]), /not an IPv4 address/);
  assert.throws(() => fullPolicy([new ServerModel({ ...server, interface: 'x" ; flush' })]), /not allowed/);
  assert.throws(() => fullPolicy([new ServerModel(server, [], [{ id: 1, serverId: 1, protocol: 'icmp' as 'tcp', listenPort: 1, targetIp: '10.1.0.2', targetIp6: null, targetPort: 2 }])]), /tcp or udp/);
  assert.throws(() => fullPolicy([new ServerModel(server, [], [{ id: 1, serverId: 1, protocol: 'tcp', listenPort: 70000, targetIp: '10.1.0.2', targetIp6: null, targetPort: 2 }])]), /not a port/);
});

t.run();
