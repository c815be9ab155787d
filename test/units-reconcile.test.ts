// The reconciler's pure parts: a `wg show dump` against the peers wgcp holds, the table as
// `nft -j list` shows it against the policy, and the monitor's reading of nft's lines.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { NO_PRESHARED_KEY, generateKeyPair, generatePresharedKey } from '../src/wg/keys';
import { peerDrift, peerRepair, wantedPeers } from '../src/kernel/reconcile-peers';
import { expectedStructure, nftDrift, parseTable } from '../src/kernel/reconcile-nft';
import { generationPid, LINE_HEAD, NftMonitor, wgcpTableOf } from '../src/kernel/nft-monitor';
import type { Logger } from '../src/log';
import { countersOfDump } from '../src/kernel/peer-counters';
import { RepairBackoff } from '../src/jobs/reconcile';
import type { Finding, ReconcileTarget } from '../src/kernel/reconcile-target';
import { linkComparer } from '../src/kernel/reconcile-comparers';
import { ServerModel } from '../src/kernel/model';
import type { ServerRecord } from '../src/store/servers';
import { emptyElements } from '../src/nft/elements';
import type { KernelPeer } from '../src/store/peers';

const t = suite('the reconciler\'s compares');

const peer = (id: number, ip6: string | null = null): KernelPeer => ({
  id, ip: `10.8.0.${id + 1}`, ip6, publicKey: generateKeyPair().publicKey, presharedKey: generatePresharedKey(), allowAccess: [], allowInternet: false, enabled: true,
});
const line = (p: KernelPeer, o: { psk?: string; allowed?: string; keepalive?: string } = {}) =>
  [p.publicKey, o.psk ?? p.presharedKey, '(none)', o.allowed ?? (p.ip6 ? `${p.ip}/32,${p.ip6}/128` : `${p.ip}/32`), '0', '0', '0', o.keepalive ?? 'off'].join('\t');
const dumpOf = (...lines: string[]) => ['PRIV\tPUB\t51820\toff', ...lines].join('\n') + '\n';

t('a dump that holds exactly the enabled peers is no drift, whatever the order of allowed IPs', () => {
  const a = peer(1, 'fd00::2');
  const b = peer(2);
  const off = { ...peer(3), enabled: false };
  assert.is(peerDrift(dumpOf(line(a), line(b)), wantedPeers([a, b, off])), null);
  assert.is(peerDrift(dumpOf(line(a, { allowed: `${a.ip6}/128,${a.ip}/32` }), line(b)), wantedPeers([a, b])), null);
});

t('finds missing, wrong, keepalive and foreign peers, and repairs them in one batch: one removal call and one addconf', () => {
  const [a, b, c, d] = [peer(1), peer(2, 'fd00::3'), peer(3), peer(4)];
  const stranger = generateKeyPair().publicKey;
  const dump = dumpOf(line(b, { allowed: `${b.ip}/32` }), line(c, { keepalive: '25' }), line(d, { psk: '(none)' }), [stranger, '(none)', '(none)', '10.8.0.99/32', '0', '0', '0', 'off'].join('\t'));
  const drift = peerDrift(dump, wantedPeers([a, b, c, d]))!;
  assert.equal(drift.missing.map((p) => p.id), [1]);
  assert.equal(drift.wrong.map((p) => p.id).sort(), [2, 4]);
  assert.equal(drift.keepalive, [c.publicKey]);
  assert.equal(drift.extra, [stranger]);
  const repair = peerRepair('wgcp1', drift);
  assert.equal(repair.removals.map((o) => o.args), [['set', 'wgcp1', 'peer', stranger, 'remove']]);
  const sections = repair.conf!.split('[Peer]').slice(1);
  assert.is(sections.length, 4, 'three drifted peers and one keepalive, each a section of the same file');
  assert.ok(sections.some((x) => x.includes(a.publicKey) && x.includes(`PresharedKey = ${a.presharedKey}`) && x.includes(`AllowedIPs = ${a.ip}/32`)));
  assert.ok(sections.some((x) => x.includes(c.publicKey) && x.includes('PersistentKeepalive = off') && !x.includes('AllowedIPs')));
});

t('a peer without a preshared key (the zero key) is no drift: the dump prints it as (none)', () => {
  const a = { ...peer(1), presharedKey: NO_PRESHARED_KEY };
  const b = peer(2);
  const wanted = wantedPeers([a, b]);
  assert.is(peerDrift(dumpOf(line(a, { psk: '(none)' }), line(b)), wanted), null);
  for (const slice of [0, 1, 2, 3]) {
    const check = { wanted, drifted: false, slice };
    countersOfDump(dumpOf(line(a, { psk: '(none)' }), line(b)), check);
    assert.is(check.drifted, false, `slice ${slice}`);
  }
  // A preshared key where none is held is drift.
  assert.equal(peerDrift(dumpOf(line(a, { psk: generatePresharedKey() }), line(b)), wanted)!.wrong.map((p) => p.id), [1]);
});

t('the usage cycle\'s parser tells, in its own pass, whether a dump differs at all', () => {
  const a = peer(1, 'fd00::2');
  const b = peer(2);
  const wanted = wantedPeers([a, b]);
  // Every slice of the attributes, as four cycles compare them.
  const drifted = (dump: string) => [0, 1, 2, 3].some((slice) => { const check = { wanted, drifted: false, slice }; countersOfDump(dump, check); return check.drifted; });
  assert.is(drifted(dumpOf(line(a), line(b))), false);
  assert.is(drifted(dumpOf(line(a, { allowed: `${a.ip6}/128,${a.ip}/32` }), line(b))), false, 'the same allowed IPs in another order');
  assert.is(drifted(dumpOf(line(a))), true, 'a peer missing');
  assert.is(drifted(dumpOf(line(a), line(b), line(peer(3)))), true, 'a peer not wgcp\'s');
  assert.is(drifted(dumpOf(line(a), line(b, { keepalive: '25' }))), true, 'a keepalive');
  assert.is(drifted(dumpOf(line(a, { psk: '(none)' }), line(b))), true, 'a preshared key');
  assert.is(drifted(dumpOf(line(a, { allowed: `${a.ip}/32` }), line(b))), true, 'an allowed IP gone');
  const inSlice = (slice: number) => { const check = { wanted, drifted: false, slice }; countersOfDump(dumpOf(line(a, { psk: '(none)' }), line(b)), check); return check.drifted; };
  assert.equal([0, 1, 2, 3].map(inSlice), [false, true, false, false], 'the first peer line\'s attributes in slice 1 only');
  const missing = { wanted, drifted: false, slice: 3 };
  countersOfDump(dumpOf(line(a)), missing);
  assert.ok(missing.drifted, 'a missing peer in every cycle, whatever the slice');
});

const tableJson = (extra: unknown[] = [], skip: string[] = []) => {
  const s = expectedStructure();
  const items: unknown[] = [{ metainfo: {} }, { table: { family: 'inet', name: 'wgcp', handle: 1 } }];
  for (const [name, kind] of s.sets) {
    if (skip.includes(name)) continue;
    const base = { family: 'inet', table: 'wgcp', name };
    if (name === 'tunnels') items.push({ set: { ...base, type: 'ifname', elem: ['wgcp1'] } });
    else if (name === 'pairs') items.push({ set: { ...base, type: ['ipv4_addr', 'ipv4_addr'], elem: [{ concat: ['10.8.0.2', '10.8.0.3'] }] } });
    else if (name === 'port_forwards') items.push({ map: { ...base, type: ['inet_proto', 'inet_service'], map: 'ipv4_addr . inet_service', elem: [[{ concat: ['tcp', 8080] }, { concat: ['10.8.0.5', 80] }]] } });
    else items.push({ [kind]: { ...base, type: 'ipv4_addr' } });
  }
  for (const [chain, count] of s.rules) {
    items.push({ chain: { family: 'inet', table: 'wgcp', name: chain } });
    for (let i = 0; i < count; i++) items.push({ rule: { family: 'inet', table: 'wgcp', chain, expr: [{ accept: null, n: i }] } });
  }
  return JSON.stringify({ nftables: [...items, ...extra] });
};

const wanted = () => {
  const el = emptyElements();
  el.tunnels.add('"wgcp1"');
  el.pairs.add('10.8.0.2 . 10.8.0.3');
  el.forwards.set('tcp . 8080', '10.8.0.5 . 80');
  return el;
};

t('reads the table\'s elements in the policy\'s own syntax: equal to what wgcp holds is no drift', () => {
  const state = parseTable(tableJson())!;
  assert.ok(state.elements.tunnels.has('"wgcp1"'));
  assert.ok(state.elements.pairs.has('10.8.0.2 . 10.8.0.3'));
  assert.is(state.elements.forwards.get('tcp . 8080'), '10.8.0.5 . 80');
  assert.is(nftDrift(state, wanted(), null), null);
});

t('an element gone or added by hand is one element batch; a gone table, set or foreign chain a reload', () => {
  const w = wanted();
  w.pairs.add('10.8.0.4 . 10.8.0.5');
  w.pairs.delete('10.8.0.2 . 10.8.0.3');
  const d = nftDrift(parseTable(tableJson())!, w, null)!;
  assert.is(d.rebuild, false);
  assert.is(d.added, 1);
  assert.is(d.removed, 1);
  assert.match(d.batch, /delete element inet wgcp pairs \{ 10\.8\.0\.2 \. 10\.8\.0\.3 \}/);
  assert.match(d.batch, /add element inet wgcp pairs \{ 10\.8\.0\.4 \. 10\.8\.0\.5 \}/);
  assert.is(nftDrift(null, wanted(), null)!.rebuild, true);
  assert.is(parseTable(JSON.stringify({ nftables: [{ metainfo: {} }] })), null);
  assert.match(nftDrift(parseTable(tableJson([], ['pairs']))!, wanted(), null)!.why!, /pairs is missing/);
  const foreign = nftDrift(parseTable(tableJson([{ chain: { family: 'inet', table: 'wgcp', name: 'mine' } }]))!, wanted(), null)!;
  assert.match(foreign.why!, /chain mine is not wgcp's/);
});

t('a set of prefixes is read back without the "any address" beside each; an element without it is not wgcp\'s shape', () => {
  const json = (elem: unknown[]) => tableJson([{ set: { family: 'inet', table: 'wgcp', name: 'internet_nets', type: ['ipv4_addr', 'ipv4_addr'], flags: ['interval'], elem } }], ['internet_nets']);
  const any = { prefix: { addr: '0.0.0.0', len: 0 } };
  const state = parseTable(json([{ concat: [{ prefix: { addr: '10.9.0.0', len: 24 } }, any] }, { concat: ['10.8.0.7', any] }]))!;
  assert.equal([...state.elements.internetNets].sort(), ['10.8.0.7', '10.9.0.0/24']);
  assert.is(state.unreadable, 0);
  const w = wanted();
  w.internetNets.add('10.9.0.0/24');
  w.internetNets.add('10.8.0.7');
  assert.is(nftDrift(state, w, null), null);
  assert.is(parseTable(json([{ prefix: { addr: '10.9.0.0', len: 24 } }]))!.unreadable, 1, 'the single-field layout of before');
  assert.is(parseTable(json([{ concat: [{ prefix: { addr: '10.9.0.0', len: 24 } }, '10.0.0.1'] }]))!.unreadable, 1, 'a second field that is not "any address"');
});

t('a rule changed by hand is seen against the chains as wgcp loaded them', () => {
  const reference = parseTable(tableJson())!.chains;
  const changed = tableJson().replace('{"accept":null,"n":0}', '{"drop":null,"n":0}');
  assert.match(nftDrift(parseTable(changed)!, wanted(), reference)!.why!, /was changed/);
  assert.is(nftDrift(parseTable(tableJson())!, wanted(), reference), null);
});

t('the monitor tells wgcp\'s tables from others and from each other, and reads the process of each transaction', () => {
  assert.is(wgcpTableOf('delete element inet wgcp pairs { 10.0.0.1 . 10.0.0.2 }'), 'nft');
  assert.is(wgcpTableOf('delete table inet wgcp'), 'nft');
  assert.is(wgcpTableOf('delete element netdev wgcp s1a2b3c4d_d4 { 10.0.0.2 }'), 'shaping');
  assert.is(wgcpTableOf('delete table netdev wgcp'), 'shaping');
  assert.is(wgcpTableOf('add element inet wgcpx pairs { 10.0.0.1 }'), null);
  assert.is(wgcpTableOf('add chain netdev wgcpy c'), null);
  assert.is(wgcpTableOf('add rule inet fw4 input accept'), null);
  assert.is(generationPid('# new generation 4 by process 17225 (nft)'), 17225);
  assert.is(generationPid('add table inet wgcp'), null);
});

t('the monitor reads a line of any length keeping only its head, and still tells a foreign transaction from its own', async () => {
  const told: string[][] = [];
  const monitor = new NftMonitor({ warn() {} } as unknown as Logger, () => [4242], (kinds) => told.push(kinds), 0);
  // A table load prints a set of thousands of elements on one line: here 2 MB, in nft's 4 KB chunks.
  const elements = Array.from({ length: 100_000 }, (_, i) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`).join(', ');
  const transaction = (pid: number) => `add element inet wgcp internet_nets { ${elements} }\n# new generation 7 by process ${pid} (nft)\n`;
  let held = 0;
  for (const pid of [4242, 1]) {
    const text = transaction(pid);
    for (let i = 0; i < text.length; i += 4096) {
      monitor.take(text.slice(i, i + 4096));
      held = Math.max(held, monitor.heldChars());
    }
  }
  await new Promise((resolve) => setTimeout(resolve, 5));
  assert.ok(held <= LINE_HEAD, `held ${held} characters of a line`);
  assert.equal(told, [['nft']], 'only the transaction of another process is told');
  monitor.close();
});

t('a repair that keeps failing waits 5 s, then twice as long each time up to 5 minutes; a success forgets it', () => {
  const b = new RepairBackoff();
  const f = { kind: 'link', serverId: 1 } as Finding;
  const other = { kind: 'link', serverId: 2 } as Finding;
  assert.is(b.waiting(f, 0), false);
  assert.is(b.failed(f, 0), 5_000);
  assert.is(b.waiting(f, 4_999), true);
  assert.is(b.waiting(other, 1), false, 'another server is not held back');
  assert.is(b.waiting(f, 5_000), false);
  assert.is(b.failed(f, 5_000), 10_000);
  for (let i = 0; i < 10; i++) b.failed(f, 0);
  assert.is(b.failed(f, 0), 300_000);
  b.clear(f);
  assert.is(b.waiting(f, 1), false);
});

t('a failing repair is said once a reason, and forgotten when a compare of its kind no longer finds it', () => {
  const b = new RepairBackoff();
  const f = { kind: 'ipv6', serverId: 1, interface: 'wgcp1' } as Finding;
  const other = { kind: 'ipv6', serverId: 2, interface: 'wgcp2' } as Finding;
  assert.is(b.saidBefore(f, 'read-only'), false);
  b.failed(f, 0, 'read-only');
  b.failed(other, 0, 'read-only');
  assert.is(b.saidBefore(f, 'read-only'), true);
  assert.is(b.saidBefore(f, 'another reason'), false, 'a new reason is said again');
  b.failed(f, 5_000, 'read-only');
  assert.equal(b.list().find((x) => x.serverId === 1), { kind: 'ipv6', serverId: 1, interface: 'wgcp1', reason: 'read-only', since: new Date(0).toISOString(), attempts: 2, nextRetryAt: new Date(15_000).toISOString() });
  assert.equal(b.settle('link', null, []), [], 'a compare of another kind forgets nothing');
  assert.equal(b.settle('ipv6', new Set([2]), []).map((x) => x.serverId), [2], 'only the servers compared');
  assert.equal(b.settle('ipv6', null, [f]), [], 'still drifted: kept');
  assert.equal(b.list().map((x) => x.serverId), [1]);
  assert.is(b.clear(f), true);
  assert.equal(b.list(), []);
});

t('a kernel link that is gone is made again with its peers; under wireguard-go its supervisor does that, not the comparer', async () => {
  const server = { id: 7, interface: `wgcpgone${process.pid % 1000}`, mode: 'forward', address: '10.8.0.1/24', address6: null } as ServerRecord;
  const model = new ServerModel(server, [peer(1), peer(2)]);
  const revived: number[] = [];
  const target = (driver: 'kernel' | 'wireguard-go') => ({
    driver, upServers: () => [model], reviveLink: async (id: number) => { revived.push(id); },
  }) as unknown as ReconcileTarget;
  const [found] = await linkComparer.inspect(target('kernel'), null);
  assert.is(found.kind, 'link');
  assert.equal(found.counts, { linksMissing: 1 });
  assert.is(found.items, 3, 'the link and its two peers');
  await found.repair();
  assert.equal(revived, [7]);
  assert.equal(await linkComparer.inspect(target('wireguard-go'), null), []);
  assert.equal(await linkComparer.inspect(target('kernel'), new Set([8])), [], 'another server only');
});

t.run();
