import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Store } from '../src/store/store';
import type { PeerRecord } from '../src/store/peers';
import type { ServerRecord } from '../src/store/servers';
import { allocatePeerIp, allocatePeerIp6 } from '../src/ops/peer-rules';
import { firstFreeHost, formatIpv4, networkOf, parseCidr, parseIpv4 } from '../src/net/ipv4';
import { formatIpv6, hostAt6, isHostOf6, parseCidr6 } from '../src/net/ipv6';
import { tempDir } from './helpers/daemon';

const t = suite('address allocation: the lowest free address in O(log n), at the ends of the range and after deletes');

const T = '2026-11-23T10:00:00.000Z';
let keySeq = 0;

function server(store: Store, address: string, address6: string | null = null): ServerRecord {
  const n = store.servers.count() + 1;
  return store.servers.insert({
    name: `s${n}`, endpoint: `vpn.example.com:${51820 + n}`, mode: 'forward', interface: `wgcp${n}`, address, address6,
    listenPort: 51820 + n, dns: '10.0.0.1', mtu: null, privateKey: 'k', publicKey: `server-${n}`, createdAt: T, updatedAt: T,
  });
}

/** A peer as createPeer makes one: the given addresses, or allocated ones. */
function add(store: Store, s: ServerRecord, ip?: string, ip6?: string | null): PeerRecord {
  const v4 = ip ?? allocatePeerIp(store, s);
  const v6 = ip6 === undefined ? allocatePeerIp6(store, s, v4) : ip6;
  return store.peers.insert({
    serverId: s.id, name: '', email: '', ip: v4, ip6: v6, publicKey: `key-${++keySeq}`, privateKey: null, presharedKey: 'psk',
    allowAccess: [], allowInternet: false, enabled: true, disabledReasons: [], dataLimitGB: 0, usageBytes: 0, expiresAt: null,
    createdAt: T, updatedAt: T,
  });
}

const refused = (fn: () => unknown, text: string) => {
  try {
    fn();
  } catch (err) {
    assert.ok(String((err as Error).message).includes(text), (err as Error).message);
    assert.is((err as { status?: number }).status, 400);
    return;
  }
  assert.unreachable(`no "${text}"`);
};

/** What the allocator answered before it kept its ranges: read every used address. */
const reference4 = (store: Store, s: ServerRecord) => firstFreeHost(parseCidr(s.address)!, [...store.peers.usedIps(s.id), formatIpv4(parseCidr(s.address)!.ip)]);

function reference6(store: Store, s: ServerRecord, ip: string): string | null {
  const prefix = parseCidr6(s.address6!)!;
  const used = new Set(store.peers.usedIp6s(s.id));
  used.add(formatIpv6(prefix.ip));
  const mirrored = hostAt6(prefix, BigInt((parseIpv4(ip)! - networkOf(parseCidr(s.address)!)) >>> 0));
  if (isHostOf6(prefix, mirrored) && !used.has(formatIpv6(mirrored))) return formatIpv6(mirrored);
  for (let n = hostAt6(prefix, 1n); isHostOf6(prefix, n); n++) if (!used.has(formatIpv6(n))) return formatIpv6(n);
  return null;
}

/** A small deterministic generator, so that a failure can be run again. */
function random(seed: number): () => number {
  let x = seed;
  return () => ((x = (x * 1103515245 + 12345) % 2147483648) / 2147483648);
}

t('IPv4: a /29 gives its hosts from the first, skips the server\'s own, then refuses with "no free address"', () => {
  const store = Store.open(tempDir());
  const s = server(store, '10.9.0.1/29');
  assert.equal([1, 2, 3, 4, 5].map(() => add(store, s).ip), ['10.9.0.2', '10.9.0.3', '10.9.0.4', '10.9.0.5', '10.9.0.6']);
  refused(() => allocatePeerIp(store, s), 'no free address is left in 10.9.0.1/29');
});

t('IPv4: the server\'s own address in the middle of the subnet is stepped over', () => {
  const store = Store.open(tempDir());
  const s = server(store, '10.9.0.4/29');
  assert.equal([1, 2, 3, 4, 5].map(() => add(store, s).ip), ['10.9.0.1', '10.9.0.2', '10.9.0.3', '10.9.0.5', '10.9.0.6']);
  refused(() => allocatePeerIp(store, s), 'no free address');
});

t('IPv4: a /31 uses both of its addresses, a /30 only its two hosts', () => {
  const store = Store.open(tempDir());
  const s31 = server(store, '10.9.0.0/31');
  assert.is(add(store, s31).ip, '10.9.0.1');
  refused(() => allocatePeerIp(store, s31), 'no free address');
  const s30 = server(store, '10.9.1.1/30');
  assert.is(add(store, s30).ip, '10.9.1.2');
  refused(() => allocatePeerIp(store, s30), 'no free address');
});

t('IPv4: after deletes the lowest freed address comes back first, then the next, then none', () => {
  const store = Store.open(tempDir());
  const s = server(store, '10.9.0.1/28');
  const peers = new Map<string, PeerRecord>();
  for (let i = 0; i < 13; i++) { const p = add(store, s); peers.set(p.ip, p); }
  assert.ok(peers.has('10.9.0.14'), 'the last host was given');
  for (const ip of ['10.9.0.9', '10.9.0.3', '10.9.0.14']) store.peers.delete(peers.get(ip)!.id);
  assert.equal([1, 2, 3].map(() => add(store, s).ip), ['10.9.0.3', '10.9.0.9', '10.9.0.14']);
  refused(() => allocatePeerIp(store, s), 'no free address');
});

t('IPv4: addresses given explicitly are stepped over, and a moved peer frees its old address', () => {
  const store = Store.open(tempDir());
  const s = server(store, '10.9.0.1/24');
  const a = add(store, s);
  add(store, s, '10.9.0.4');
  add(store, s, '10.9.0.5');
  assert.equal([add(store, s).ip, add(store, s).ip], ['10.9.0.3', '10.9.0.6']);
  store.peers.update({ ...a, ip: '10.9.0.100' });
  assert.is(add(store, s).ip, '10.9.0.2');
  assert.is(add(store, s).ip, '10.9.0.7');
});

t('a transaction that rolls back loses no address and takes none', () => {
  const store = Store.open(tempDir());
  const s = server(store, '10.9.0.1/24', 'fd00:9::1/64');
  const [, b] = [add(store, s), add(store, s), add(store, s)];
  assert.throws(() => store.tx(() => { add(store, s); throw new Error('kernel refused'); }), /kernel refused/);
  assert.equal([allocatePeerIp(store, s), allocatePeerIp6(store, s, '10.9.0.5')], ['10.9.0.5', 'fd00:9::5']);
  assert.throws(() => store.tx(() => { store.peers.delete(b.id); throw new Error('kernel refused'); }), /kernel refused/);
  assert.is(allocatePeerIp(store, s), '10.9.0.5', 'the address of a delete that rolled back stays taken');
  store.peers.delete(b.id);
  assert.equal([allocatePeerIp(store, s), allocatePeerIp6(store, s, '10.9.0.9')], ['10.9.0.3', 'fd00:9::9']);
});

t('what another connection (the CLI beside the daemon) inserts or deletes is seen at once', () => {
  const dir = tempDir();
  const daemon = Store.open(dir);
  const s = server(daemon, '10.9.0.1/24');
  const peers = [1, 2, 3, 4].map(() => add(daemon, s));
  assert.is(allocatePeerIp(daemon, s), '10.9.0.6');
  const cli = Store.open(dir);
  cli.peers.delete(peers[1].id);
  add(cli, s, '10.9.0.6');
  assert.is(allocatePeerIp(daemon, s), '10.9.0.3');
  add(daemon, s);
  assert.is(allocatePeerIp(daemon, s), '10.9.0.7');
  cli.close();
});

t('IPv4: a /20 fills to its last host and refuses the next; over 3,000 random creates, deletes and explicit addresses it answers what reading every used address answers', () => {
  const store = Store.open(tempDir());
  const s = server(store, '10.9.0.1/20');
  let last = '';
  for (let i = 0; i < 4093; i++) last = add(store, s).ip;
  assert.is(last, '10.9.15.254');
  refused(() => allocatePeerIp(store, s), 'no free address is left in 10.9.0.1/20');
  const next = random(15);
  const held = store.peers.listByServer(s.id);
  for (let step = 0; step < 3000; step++) {
    const r = next();
    if ((r < 0.45 || held.length > 4000) && held.length > 0) store.peers.delete(held.splice(Math.floor(next() * held.length), 1)[0].id);
    else if (r < 0.55) {
      const ip = formatIpv4(parseCidr(s.address)!.ip + 1 + Math.floor(next() * 4090));
      if (store.peers.idByIp(s.id, ip) === undefined) held.push(add(store, s, ip, null));
    } else {
      const expected = reference4(store, s);
      if (expected === null) refused(() => allocatePeerIp(store, s), 'no free address');
      else { assert.is(allocatePeerIp(store, s), expected, `step ${step}`); held.push(add(store, s, expected, null)); }
    }
  }
});

t('IPv6: the IPv4 host number mirrored into the prefix; when that is taken, the lowest free address of the prefix', () => {
  const store = Store.open(tempDir());
  const s = server(store, '10.9.0.1/24', 'fd00:9::1/64');
  assert.is(add(store, s, undefined, 'fd00:9::3').ip6, 'fd00:9::3');
  const p = add(store, s);
  assert.equal([p.ip, p.ip6], ['10.9.0.3', 'fd00:9::2'], 'the mirror ::3 was taken');
  assert.is(add(store, s).ip6, 'fd00:9::4');
});

t('IPv6: a /126 prefix gives ::2 and ::3 (not its network address, not the server\'s), then refuses; a freed address comes back', () => {
  const store = Store.open(tempDir());
  const s = server(store, '10.9.0.1/24', 'fd00:9::1/126');
  const a = add(store, s);
  assert.equal([a.ip6, add(store, s).ip6], ['fd00:9::2', 'fd00:9::3']);
  refused(() => add(store, s), 'no free address is left in fd00:9::1/126');
  store.peers.delete(a.id);
  assert.is(allocatePeerIp6(store, s, '10.9.0.77'), 'fd00:9::2');
});

t('IPv6: over 3,000 random creates, deletes and explicit addresses it answers what reading every used address answers', () => {
  const store = Store.open(tempDir());
  const s = server(store, '10.9.0.1/22', 'fd00:9::1/120');
  const next = random(6);
  const held: PeerRecord[] = [];
  for (let step = 0; step < 3000; step++) {
    const r = next();
    if (r < 0.4 && held.length > 0) store.peers.delete(held.splice(Math.floor(next() * held.length), 1)[0].id);
    else if (r < 0.5) {
      const ip6 = `fd00:9::${(2 + Math.floor(next() * 250)).toString(16)}`;
      if (store.peers.idByIp6(s.id, ip6) === undefined) held.push(add(store, s, undefined, ip6));
    } else {
      const ip = allocatePeerIp(store, s);
      const expected = reference6(store, s, ip);
      if (expected === null) { refused(() => allocatePeerIp6(store, s, ip), 'no free address'); continue; }
      assert.is(allocatePeerIp6(store, s, ip), expected, `step ${step}`);
      held.push(add(store, s, ip, expected));
    }
  }
});

t.run();
