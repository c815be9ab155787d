import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ServerModel } from '../src/kernel/model';
import { planPeerSync, WG_ARGS_BYTES, wgChunks } from '../src/kernel/peer-sync';
import { peerOps } from '../src/wg/uapi-conf';
import { peerChangesToward, peerDiffers, serverDiffers } from '../src/kernel/server-sync';
import { diff } from '../src/nft/diff';
import { fullPolicy } from '../src/nft/policy';
import { SECRET_FILE } from '../src/exec/command';
import type { PeerRecord } from '../src/store/peers';
import type { ServerRecord } from '../src/resources/server';
import { fixturePeer, fixtureServer } from './helpers/kernel-fixtures';

const t = suite('the partial sync of the peers a change names: one filter diff, wg set clauses, routes and limits, equal to the peers changed one by one');

const server = fixtureServer(7);
const off = (p: PeerRecord): PeerRecord => ({ ...p, enabled: false, disabledReasons: ['schedule'] });
const on = (p: PeerRecord): PeerRecord => ({ ...p, enabled: true, disabledReasons: [] });

t('the batch turns the table into exactly what the peers after it make, pairs between changed peers included', () => {
  const a = fixturePeer(1, server, 1, { allowAccess: [2, 3], allowInternet: true });
  const b = fixturePeer(2, server, 2, { allowAccess: [1] });
  const c = off(fixturePeer(3, server, 3, { allowAccess: [1], allowInternet: true }));
  const d = fixturePeer(4, server, 4, { allowAccess: [2] });
  const model = new ServerModel(server, [a, b, c, d]);
  // A closes, C opens, in one batch; D (untouched) names B, which stays.
  const plan = planPeerSync([{ server, before: a, after: off(a) }, { server, before: c, after: on(c) }], () => model);
  const wanted = diff(fullPolicy([new ServerModel(server, [a, b, c, d])]), fullPolicy([new ServerModel(server, [off(a), b, on(c), d])]));
  const lines = (text: string) => text.trim().split('\n').flatMap((l) => {
    const m = /^(add|delete) element inet wgcp (\w+) \{ (.*) \}$/.exec(l)!;
    return m[3].split(', ').map((e) => `${m[1]} ${m[2]} ${e}`);
  }).sort();
  assert.equal(lines(plan.nft), lines(wanted));
  assert.ok(plan.nft.includes(`${a.ip} . ${b.ip}`) && plan.nft.includes(`${c.ip}`), plan.nft);
  // And back: the reverse batch is the inverse.
  assert.equal(lines(plan.nftReverse), lines(diff(fullPolicy([new ServerModel(server, [off(a), b, on(c), d])]), fullPolicy([new ServerModel(server, [a, b, c, d])]))));
  // wg: A removed, C set with its preshared key file and both addresses.
  assert.is(plan.servers.length, 1);
  assert.equal(plan.servers[0].ops.map((o) => o.args.slice(2).join(' ')), [
    `peer ${a.publicKey} remove`,
    `peer ${c.publicKey} preshared-key ${SECRET_FILE} allowed-ips ${c.ip}/32,${c.ip6}/128`,
  ]);
  assert.is(plan.servers[0].ops[1].secret, `${c.presharedKey}\n`);
  assert.equal(plan.servers[0].restore.map((o) => o.args[3]), [a.publicKey, c.publicKey]);
  assert.not.ok(plan.fresh, 'peers the kernel holds: nft first, then wg');
});

t('a peer held off by another reason makes no kernel step of its own', () => {
  const a = off(fixturePeer(1, server, 1));
  const model = new ServerModel(server, [a]);
  const after: PeerRecord = { ...a, disabledReasons: ['admin', 'schedule'] };
  const plan = planPeerSync([{ server, before: a, after }], () => model);
  assert.is(plan.nft, '');
  assert.equal(plan.servers[0].ops, []);
  assert.equal(plan.servers[0].restore, []);
});

t('the networks behind a peer: only those that changed have their routes go or come; a limit names the peer for the shaper', () => {
  const a = fixturePeer(1, server, 1, { networks: ['10.20.0.0/24', '10.21.0.0/24'] });
  const model = new ServerModel(server, [a]);
  const after = { ...a, networks: ['10.21.0.0/24', '10.22.0.0/24'], downloadLimitMbps: 5 };
  const plan = planPeerSync([{ server, before: a, after }], () => model);
  assert.equal(plan.servers[0].routesGone, ['10.20.0.0/24']);
  assert.equal(plan.servers[0].routesAdded, ['10.22.0.0/24']);
  assert.equal(plan.servers[0].limits, [{ id: 1, after }]);
});

t('peers new to the kernel are fresh (their steps go at once); with one the kernel holds, the plan is not', () => {
  const a = fixturePeer(1, server, 1);
  const b = fixturePeer(2, server, 2);
  assert.ok(planPeerSync([{ server, before: null, after: a }, { server, before: null, after: b }], () => new ServerModel(server, [])).fresh);
  assert.not.ok(planPeerSync([{ server, before: null, after: a }, { server, before: b, after: { ...b, allowInternet: !b.allowInternet } }], () => new ServerModel(server, [b])).fresh);
});

t('rows against the rows the kernel holds: a change of any field the kernel reads is a change; names, dates and usage are not', () => {
  const a = fixturePeer(1, server, 1, { allowInternet: true });
  const renamed: PeerRecord = { ...a, name: 'renamed', usageBytes: 12345, updatedAt: '2030-01-01T00:00:00.000Z' };
  assert.not.ok(peerDiffers(a, renamed));
  for (const change of [{ allowInternet: false }, { ip6: null }, { networks: ['10.30.0.0/24'] }, { lanAccess: 'lan' as const }, { reachableFrom: ['10.40.0.0/24'] }, { downloadLimitMbps: 3 }, { uploadLimitMbps: 2 }, { allowAccess: [2] }, { ip: '10.7.0.99' }, { publicKey: 'x' }, { presharedKey: 'y' }, { enabled: false }]) {
    assert.ok(peerDiffers(a, { ...a, ...change }), JSON.stringify(change));
  }
  assert.ok(peerDiffers(a, null) && peerDiffers(null, a) && !peerDiffers(null, null));
});

t('the changes toward the store\'s rows: only those named (partial) or every peer on either side (full)', () => {
  const [a, b, c] = [fixturePeer(1, server, 1), fixturePeer(2, server, 2), fixturePeer(3, server, 3)];
  const model = new ServerModel(server, [a, b]);
  const desired = { server, peers: [{ ...a, allowInternet: !a.allowInternet }, c], forwards: [] };
  const ids = (changes: { before: { id: number } | null; after: { id: number } | null }[]) => changes.map((ch) => `${ch.before?.id ?? '-'}>${ch.after?.id ?? '-'}`).sort();
  assert.equal(ids(peerChangesToward(model, desired, [1])), ['1>1']);
  assert.equal(ids(peerChangesToward(model, desired, [3, 2])), ['->3', '2>-']);
  assert.equal(ids(peerChangesToward(model, desired, 'all')), ['->3', '1>1', '2>-']);
});

t('a sync of 2,500 peers is one `wg set`; 10,000 are a few, each within the argument bound', () => {
  const peers = (n: number) => Array.from({ length: n }, (_, i) => fixturePeer(i + 1, server, i + 1));
  const calls = (n: number) => wgChunks(peers(n).flatMap((p) => peerOps('wg7', null, p)));
  assert.is(calls(2500).length, 1);
  const many = calls(10_000);
  assert.ok(many.length > 1 && many.length <= 5, `${many.length} calls`);
  for (const c of many) assert.ok(c.reduce((n, op) => n + op.args.slice(2).join(' ').length, 0) < WG_ARGS_BYTES);
  assert.is(many.flat().length, 10_000);
});

t('a server row differs for the kernel only in what reaches it: its name, DNS and dates do not', () => {
  const renamed = { ...server, name: 'other', dns: '1.1.1.1', updatedAt: 'later', endpoint: 'vpn.example:1' };
  assert.not.ok(serverDiffers(server, renamed));
  for (const change of [{ listenPort: 1 }, { mtu: 1300 }, { address: '10.9.9.1/24' }, { address6: 'fd00:9::1/64' }, { interface: 'wgx' }, { mode: (server.mode === 'forward' ? 'standalone' : 'forward') as ServerRecord['mode'] }, { privateKey: 'k' }]) {
    assert.ok(serverDiffers(server, { ...server, ...change }), JSON.stringify(change));
  }
});

t.run();
