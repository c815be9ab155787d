// The shaping maps' drift, pure: `nft -j list table netdev wgcp` read back, the elements a
// server's limited peers need, the element lines (or the whole rebuild) that put it right; and
// `wgcp check`'s look at each limit, followed through the maps and classes.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { checkLimits, limitsCheckFails, limitsCheckSummary } from '../src/shaping/check-limits';
import { elementDrift, expectedElements, hasElementDrift, parseShapingTable } from '../src/shaping/compare-elements';
import { installNftLines, namesOf, type ShapedPeer } from '../src/shaping/render';

const t = suite('shaping maps: drift of their elements, and wgcp check\'s look at each limit');
const n = namesOf('wg0');
const peer = (over: Partial<ShapedPeer> = {}): ShapedPeer => ({ ip: '10.8.0.2', ip6: 'fd00:0::2', minor: 10, down: 20, up: 10, ...over });

/** The table as nft 1.0's JSON lists it: four maps with these elements, both chains with their two rules. */
function listing(elements: Partial<Record<'d4' | 'd6' | 'u4' | 'u6', [string, string][]>>, over: { rules?: number; noMap?: string; hook?: string } = {}): string {
  const items: unknown[] = [{ metainfo: { version: '1.0.6' } }, { table: { family: 'netdev', name: 'wgcp', handle: 1 } }];
  for (const d of ['d4', 'd6', 'u4', 'u6'] as const) {
    if (over.noMap === d) continue;
    const map: Record<string, unknown> = { family: 'netdev', name: `${n.prefix}_${d}`, table: 'wgcp', type: d.endsWith('4') ? 'ipv4_addr' : 'ipv6_addr', handle: 2, map: 'classid' };
    if (elements[d]?.length) map.elem = elements[d];
    items.push({ map });
  }
  for (const [c, hook] of [['out', over.hook ?? 'egress'], ['in', 'ingress']]) {
    items.push({ chain: { family: 'netdev', table: 'wgcp', name: `${n.prefix}_${c}`, type: 'filter', hook, prio: 0, policy: 'accept' } });
    for (let i = 0; i < (over.rules ?? 2); i++) items.push({ rule: { family: 'netdev', table: 'wgcp', chain: `${n.prefix}_${c}`, expr: [] } });
  }
  return JSON.stringify({ nftables: items });
}

const whole = { d4: [['10.8.0.2', '1:a']], d6: [['fd00::2', '1:a']], u4: [['10.8.0.2', '1:a']], u6: [['fd00::2', '1:a']] } as Record<string, [string, string][]>;

t('a table as the shaper made it is no drift, IPv6 compared in nft\'s shortest form', () => {
  const d = elementDrift(n, expectedElements(n, [peer()]), parseShapingTable(listing(whole)));
  assert.not.ok(hasElementDrift(d));
  assert.equal(d.lines, []);
});

t('the expected elements are exactly those installNftLines adds: one a family and direction the peer is limited in', () => {
  const peers = [peer(), peer({ ip: '10.8.0.3', ip6: null, minor: 11, up: null })];
  const expected = expectedElements(n, peers);
  const fromInstall = installNftLines(n, peers).filter((l) => l.startsWith('add element')).map((l) => / (\S+) \{ (\S+) : (\S+) \}$/.exec(l)!.slice(1).join(' '));
  const fromExpected = [...expected].flatMap(([map, els]) => [...els].map(([addr, c]) => `${map} ${addr} ${c}`));
  assert.equal(fromExpected.sort(), fromInstall.map((l) => l.replace('fd00:0::2', 'fd00::2')).sort());
});

t('an element deleted by hand is missing and added back; one naming another class is replaced; one no peer needs is deleted', () => {
  const shown = listing({ d4: [['10.8.0.9', '1:c']], d6: [['fd00::2', '1:b']], u4: [['10.8.0.2', '1:a']], u6: [['fd00::2', '1:a']] });
  const d = elementDrift(n, expectedElements(n, [peer()]), parseShapingTable(shown));
  assert.equal([d.rebuild, d.missing, d.wrongClass, d.extra], [false, 1, 1, 1]);
  assert.equal(d.lines, [
    `delete element netdev wgcp ${n.prefix}_d4 { 10.8.0.9 }`,
    `delete element netdev wgcp ${n.prefix}_d6 { fd00::2 }`,
    `add element netdev wgcp ${n.prefix}_d4 { 10.8.0.2 : 1:a }`,
    `add element netdev wgcp ${n.prefix}_d6 { fd00::2 : 1:a }`,
  ]);
});

t('a map gone, a chain flushed or hooked elsewhere, or no table at all is a rebuild, with no element lines', () => {
  const expected = expectedElements(n, [peer()]);
  for (const [why, text] of [['map gone', listing(whole, { noMap: 'u6' })], ['chain flushed', listing(whole, { rules: 0 })], ['other hook', listing(whole, { hook: 'ingress' })], ['no table', '']]) {
    const d = elementDrift(n, expected, parseShapingTable(text));
    assert.ok(d.rebuild, why);
    assert.equal(d.lines, [], why);
    assert.ok(hasElementDrift(d), why);
  }
});

t('another server\'s maps and chains in the same table are not this one\'s drift', () => {
  const other = namesOf('wg1');
  const items = JSON.parse(listing(whole)) as { nftables: unknown[] };
  items.nftables.push({ map: { family: 'netdev', name: `${other.prefix}_d4`, table: 'wgcp', type: 'ipv4_addr', map: 'classid', elem: [['10.9.0.2', '1:a']] } });
  assert.not.ok(hasElementDrift(elementDrift(n, expectedElements(n, [peer()]), parseShapingTable(JSON.stringify(items)))));
});

const tunnelClasses = 'class htb 1:a root leaf 8001: prio 0 rate 20Mbit ceil 20Mbit burst 64Kb cburst 64Kb \nclass htb 1:b root prio 0 rate 10Gbit ceil 10Gbit burst 64Kb cburst 64Kb \n';
const ifbClasses = 'class htb 1:a root prio 0 rate 10Mbit ceil 10Mbit burst 64Kb cburst 64Kb \nclass htb 1:b root prio 0 rate 10Gbit ceil 10Gbit burst 64Kb cburst 64Kb \n';
const dbPeer = { ip: '10.8.0.2', ip6: 'fd00:0::2', down: 20, up: 10 };

t('wgcp check follows each limit through the kernel without knowing the daemon\'s class numbers: as made, nothing fails', () => {
  const c = checkLimits(n, [dbPeer, { ip: '10.8.0.3', ip6: null, down: null, up: null }], parseShapingTable(listing(whole)), tunnelClasses, ifbClasses);
  assert.equal(c, { notSetUp: false, notApplied: 0, wrongRate: 0, extra: 0 });
  assert.not.ok(limitsCheckFails(c));
});

t('wgcp check counts a limit whose element or class is gone, one at another rate, and an address shaped without a limit', () => {
  const shown = parseShapingTable(listing({ ...whole, d4: [] }));
  assert.equal(checkLimits(n, [dbPeer], shown, tunnelClasses, ifbClasses), { notSetUp: false, notApplied: 1, wrongRate: 0, extra: 0 });
  // Upload is shaped on the IFB: its class gone fails both upload limits (IPv4 and IPv6), not the download ones.
  assert.equal(checkLimits(n, [dbPeer], parseShapingTable(listing(whole)), tunnelClasses, ''), { notSetUp: false, notApplied: 2, wrongRate: 0, extra: 0 });
  assert.equal(checkLimits(n, [{ ...dbPeer, down: 25 }], parseShapingTable(listing(whole)), tunnelClasses, ifbClasses), { notSetUp: false, notApplied: 0, wrongRate: 2, extra: 0 });
  const lifted = checkLimits(n, [{ ...dbPeer, up: null }], parseShapingTable(listing(whole)), tunnelClasses, ifbClasses);
  assert.equal(lifted, { notSetUp: false, notApplied: 0, wrongRate: 0, extra: 2 });
  assert.is(limitsCheckSummary('wg0', lifted), 'wg0: bandwidth limits: 2 addresses shaped without a limit (a peer\'s direction and family counts once)');
});

t('wgcp check: a limit on a server with no shaping set up says so; a server with no limits and no shaping is fine', () => {
  const none = parseShapingTable('');
  const c = checkLimits(n, [dbPeer], none, '', '');
  assert.ok(c.notSetUp);
  assert.match(limitsCheckSummary('wg0', c), 'not set up');
  // The same test of the maps and chains as the reconciler's: a chain on another hook is not set up either.
  assert.ok(checkLimits(n, [dbPeer], parseShapingTable(listing(whole, { hook: 'ingress' })), tunnelClasses, ifbClasses).notSetUp);
  assert.not.ok(limitsCheckFails(checkLimits(n, [{ ...dbPeer, down: null, up: null }], none, '', '')));
});

t.run();
