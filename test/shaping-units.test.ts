// The shaping's pure parts: one peer's delta (a few lines, whatever the number of peers),
// the class minors, the drift against `tc class show`; and the kept tc session, with the
// real tc, reporting which line of a group failed and why.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { expectedClasses, hasDrift, needsInstall, parseHtbClasses, repairTcLines, shapingDrift } from '../src/shaping/compare';
import { MinorPool } from '../src/shaping/minors';
import { burstOf, installNftLines, installTcLines, namesOf, peerDelta, type ShapedPeer } from '../src/shaping/render';
import { TcSession } from '../src/shaping/tc-session';
import { suiteNeeding } from './helpers/root';

const t = suite('shaping: deltas, minors, drift');
const n = namesOf('wg0');
const peer = (over: Partial<ShapedPeer> = {}): ShapedPeer => ({ ip: '10.8.0.2', ip6: 'fd00::2', minor: 5, down: 20, up: 10, ...over });

t('a new limited peer is a slot (a class and its queue on the tunnel and on the IFB), then a map element a family and direction', () => {
  const d = peerDelta(n, null, peer());
  assert.equal(d.tc.filter((l) => l.startsWith('class replace')).map((l) => l.split(' ')[3]), ['wg0', n.ifb]);
  assert.is(d.tc.filter((l) => l.startsWith('qdisc replace')).length, 2);
  assert.equal(d.nft, [
    `add element netdev wgcp ${n.prefix}_d4 { 10.8.0.2 : 1:5 }`, `add element netdev wgcp ${n.prefix}_d6 { fd00::2 : 1:5 }`,
    `add element netdev wgcp ${n.prefix}_u4 { 10.8.0.2 : 1:5 }`, `add element netdev wgcp ${n.prefix}_u6 { fd00::2 : 1:5 }`,
  ]);
});

t('a peer limited one way parks the other class at 10 Gbit/s with no element naming it', () => {
  const d = peerDelta(n, null, peer({ up: null }));
  assert.match(d.tc.find((l) => l.includes(`dev ${n.ifb}`) && l.startsWith('class'))!, 'rate 10000000000bit');
  assert.not.ok(d.nft.some((l) => l.includes('_u4') || l.includes('_u6')));
});

t('changing a rate touches that class only; lifting a limit deletes its elements and keeps the slot (a spare now)', () => {
  const faster = peerDelta(n, peer(), peer({ down: 50 }));
  assert.equal(faster.nft, []);
  assert.is(faster.tc.length, 2);
  assert.match(faster.tc[0], 'dev wg0');
  assert.match(faster.tc[0], 'rate 50000000bit');
  const noUpload = peerDelta(n, peer(), peer({ up: null }));
  assert.ok(noUpload.nft.some((l) => l.startsWith('delete element') && l.includes('_u4')));
  assert.ok(noUpload.nft.some((l) => l.startsWith('add element') && l.includes('_d4')));
  assert.match(noUpload.tc[0], `dev ${n.ifb}`);
  const gone = peerDelta(n, peer(), null);
  assert.equal(gone.tc, []);
  assert.is(gone.nft.length, 4);
  assert.ok(gone.nft.every((l) => l.startsWith('delete element')));
});

t('a peer without IPv6 has IPv4 elements only; minors are hexadecimal as tc and nft read them', () => {
  const d = peerDelta(n, null, peer({ ip6: null, minor: 255, up: null }));
  assert.equal(d.nft, [`add element netdev wgcp ${n.prefix}_d4 { 10.8.0.2 : 1:ff }`]);
  assert.match(d.tc[0], 'classid 1:ff');
});

t('a change costs the same lines at 10 and at 10,000 limited peers; install holds them all and the spares', () => {
  const many = Array.from({ length: 10_000 }, (_, i) => peer({ minor: i + 1, ip: `10.8.${i >> 8}.${i & 255}` }));
  assert.is(installTcLines(n, many, [10_001, 10_002]).length, 2 + 4 * 10_002);
  assert.is(installNftLines(n, many).filter((l) => l.startsWith('add element')).length, 4 * 10_000);
  const d = peerDelta(n, many[9_999], { ...many[9_999], down: 1 });
  assert.is(d.tc.length + d.nft.length, 2);
});

t('bursts hold a 64 KB GSO packet at least', () => {
  assert.is(burstOf(0.1), 65_536);
  assert.ok(burstOf(10_000) > 65_536);
});

t('names follow the interface and fit a link name', () => {
  assert.ok(namesOf('wgcp-very-long1').ifb.length <= 15);
  assert.is.not(namesOf('wg0').ifb, namesOf('wg1').ifb);
});

t('minors: the lowest never used first, freed ones again, one taken back by an undo', () => {
  const pool = new MinorPool();
  assert.equal([pool.take(), pool.take(), pool.take()], [1, 2, 3]);
  pool.give(2);
  assert.is(pool.take(), 2);
  pool.give(1);
  pool.take(1);
  assert.is(pool.take(), 4);
});

t('drift: a missing class, one at another rate and one no peer needs are told apart; tc rounding, parked and spare classes are not drift', () => {
  const shown = {
    wg0: 'class htb 1:5 root leaf 8001: prio 0 rate 20Mbit ceil 20Mbit burst 64Kb cburst 64Kb \nclass htb 1:9 root prio 0 rate 1Mbit ceil 1Mbit burst 64Kb cburst 64Kb \nclass htb 1:a root prio 0 rate 10Gbit ceil 10Gbit burst 64Kb cburst 64Kb \n',
    [n.ifb]: 'class htb 1:5 root prio 0 rate 12345Kbit ceil 12345Kbit burst 64Kb cburst 64Kb \nclass htb 1:a root prio 0 rate 10Gbit ceil 10Gbit burst 64Kb cburst 64Kb \n',
  };
  assert.equal([...parseHtbClasses(shown.wg0)], [['1:5', 20e6], ['1:9', 1e6], ['1:a', 10e9]]);
  const ok = shapingDrift(expectedClasses(n, [peer({ up: 12.345678 })], [10]), shown);
  assert.equal(ok.missing, []);
  assert.equal(ok.wrongRate, []);
  assert.equal(ok.extra, [{ dev: 'wg0', classid: '1:9' }]);
  const parked = shapingDrift(expectedClasses(n, [peer({ up: null })], [10]), shown);
  assert.equal(parked.wrongRate, []);
  const drift = shapingDrift(expectedClasses(n, [peer({ up: 10 }), peer({ minor: 6 })]), shown);
  assert.equal(drift.wrongRate.map((w) => w.dev), [n.ifb]);
  assert.equal(drift.missing.map((m) => `${m.dev} ${m.classid}`), ['wg0 1:6', `${n.ifb} 1:6`]);
  assert.ok(hasDrift(drift));
  assert.not.ok(hasDrift(shapingDrift([], { wg0: '' })));
});

t('a repair is the drifted classes\' lines alone; a device that lost every class needs the whole install', () => {
  const expected = expectedClasses(n, [peer({ down: 20, up: 10 }), peer({ minor: 6, down: 5, up: null })]);
  const drift = { missing: [expected[0]], wrongRate: [{ ...expected[1], rateBit: 10e6, shownBit: 3e6 }], extra: [{ dev: 'wg0', classid: '1:9' }] };
  const lines = repairTcLines(drift);
  assert.equal(lines.filter((l) => l.startsWith('class replace')).map((l) => / dev (\S+) .* classid (\S+) htb rate (\S+)/.exec(l)!.slice(1).join(' ')),
    [`wg0 ${expected[0].classid} 20000000bit`, `${n.ifb} ${expected[1].classid} 10000000bit`]);
  assert.ok(lines.includes('class del dev wg0 classid 1:9'));
  assert.is(lines.length, 5);
  assert.not.ok(needsInstall(expected, drift));
  assert.ok(needsInstall(expected, { missing: expected.filter((e) => e.dev === 'wg0'), wrongRate: [], extra: [] }));
});

t.run();

const real = suiteNeeding('shaping: the kept tc session', ['tc']);

real('runs groups in one tc; a failed line is reported with its message, the session goes on', async () => {
  const tc = new TcSession();
  try {
    await tc.run(['qdisc show dev lo']);
    const pid = tc.pid();
    const err = await tc.run(['qdisc show dev lo', 'class del dev lo classid 1:77', 'qdisc show dev lo']).then(() => null, (e: Error) => e);
    assert.ok(err, 'the failed line fails the group');
    assert.match(err!.message, /line 2: /);
    await tc.run(['qdisc show dev lo']);
    assert.is(tc.pid(), pid, 'the same tc answered every group');
    await tc.run(['qdisc show dev lo'], true);
    assert.is.not(tc.pid(), pid, 'a fresh session was asked for');
  } finally {
    await tc.close();
  }
});

real('a line that is not plain words is refused before tc sees it', async () => {
  const tc = new TcSession();
  try {
    assert.throws(() => tc.run(['qdisc show dev lo\nqdisc del dev lo root']), /refused/);
  } finally {
    await tc.close();
  }
});

real.run();
