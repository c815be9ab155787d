import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ServerModel } from '../src/kernel/model';
import { planPeerBatch } from '../src/kernel/peer-batch';
import { diff } from '../src/nft/diff';
import { fullPolicy } from '../src/nft/policy';
import { SECRET_FILE } from '../src/exec/command';
import type { PeerRecord } from '../src/store/peers';
import { fixturePeer, fixtureServer } from './helpers/kernel-fixtures';

const t = suite('a batch of peer changes: one filter diff and wg set clauses, equal to the peers changed one by one');

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
  const plan = planPeerBatch([{ server, before: a, after: off(a) }, { server, before: c, after: on(c) }], () => model);
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
  assert.is(plan.wg.length, 1);
  assert.equal(plan.wg[0].ops.map((o) => o.args.slice(2).join(' ')), [
    `peer ${a.publicKey} remove`,
    `peer ${c.publicKey} preshared-key ${SECRET_FILE} allowed-ips ${c.ip}/32,${c.ip6}/128`,
  ]);
  assert.is(plan.wg[0].ops[1].secret, `${c.presharedKey}\n`);
  assert.equal(plan.wg[0].restore.map((o) => o.args[3]), [a.publicKey, c.publicKey]);
});

t('a peer held off by another reason makes no kernel step of its own', () => {
  const a = off(fixturePeer(1, server, 1));
  const model = new ServerModel(server, [a]);
  const plan = planPeerBatch([{ server, before: a, after: { ...a, disabledReasons: ['admin', 'schedule'] } }], () => model);
  assert.is(plan.nft, '');
  assert.equal(plan.wg, []);
});

t.run();
