// The commands of per-peer bandwidth limits, as text: pure, so that tests and the reconciler
// read exactly what the shaper runs. Per server interface:
//
//   download  an HTB qdisc (1:) on the tunnel; a class 1:<minor> per peer with a download
//             limit. A netdev `egress` chain sets the packet's priority from a map of the
//             peer's addresses to its class: HTB takes a priority naming one of its classes
//             as the class, so there is no tc filter at all. Other peers miss the map and go
//             HTB's direct way, unshaped.
//   upload    a netdev `ingress` chain on the tunnel sets the priority the same way from the
//             sender's address and forwards the packet to the server's IFB device, whose HTB
//             shapes it; the IFB hands it back to the tunnel's input. Peers without an upload
//             limit miss the map and never reach the IFB.
//
// A limited peer holds a slot: a class (and its leaf queue) of the same minor on both devices,
// the direction it does not limit parked at 10 Gbit/s with no map element naming it. Making a
// class costs a walk of all the qdisc's classes in the kernel (tc_bind_tclass: 2-3 ms at
// 10,000), changing one does not; so a lifted peer's slot is kept as a spare and a new limit
// takes a spare by changing its rates, while the shaper makes and deletes spares between
// changes. A change is a few lines and map elements, at 10 or 10,000 limited peers. Nothing
// is a named nft object.
import crypto from 'node:crypto';

export const SHAPING_TABLE = 'netdev wgcp';

/** A limited peer as the shaper holds it: its addresses, its class's minor and its rates (Mbit/s, null: none). */
export interface ShapedPeer {
  ip: string;
  ip6: string | null;
  minor: number;
  down: number | null;
  up: number | null;
}

/** The names one server's shaping uses, all derived from its interface name (unique on the router). */
export interface ShapingNames { ifname: string; ifb: string; prefix: string }

export function namesOf(ifname: string): ShapingNames {
  const h = crypto.createHash('sha256').update(ifname).digest('hex').slice(0, 8);
  return { ifname, ifb: `wgifb${h}`, prefix: `s${h}` };
}

/** HTB minors are 16 bits; 0 names the qdisc itself. */
export const MAX_MINOR = 0xfffe;
export const classIdOf = (minor: number): string => `1:${minor.toString(16)}`;
const bits = (mbps: number): number => Math.round(mbps * 1e6);

/**
 * Bursts hold at least a 64 KB GSO packet (less and a big packet never fits a token bucket),
 * or 4 ms at the rate for fast limits; the leaf queue holds 200 ms at the rate, at least
 * three bursts and at most 4 MB.
 */
export const burstOf = (mbps: number): number => Math.max(65_536, Math.ceil(bits(mbps) / 8 / 250));
export const queueOf = (mbps: number): number => Math.min(4 << 20, Math.max(3 * burstOf(mbps), Math.ceil(bits(mbps) / 8 / 5)));

/** A class and its leaf queue, made or changed in place (`replace`). */
export function classLines(dev: string, minor: number, mbps: number): string[] {
  const rate = `${bits(mbps)}bit`;
  const burst = burstOf(mbps);
  return [
    `class replace dev ${dev} parent 1: classid ${classIdOf(minor)} htb rate ${rate} ceil ${rate} burst ${burst} cburst ${burst} quantum 65536`,
    `qdisc replace dev ${dev} parent ${classIdOf(minor)} bfifo limit ${queueOf(mbps)}`,
  ];
}

export const classDeleteLine = (dev: string, minor: number): string => `class del dev ${dev} classid ${classIdOf(minor)}`;

/** The rate of a slot's class for a direction without a limit: nothing names it, it shapes nothing. */
export const PARK_MBPS = 10_000;

/** A slot's two classes at these rates (null: parked), made or changed. */
export const slotLines = (n: ShapingNames, minor: number, down: number | null, up: number | null): string[] =>
  [...classLines(n.ifname, minor, down ?? PARK_MBPS), ...classLines(n.ifb, minor, up ?? PARK_MBPS)];

/** A slot's two classes deleted (their leaf queues go with them). */
export const slotDeleteLines = (n: ShapingNames, minor: number): string[] => [classDeleteLine(n.ifname, minor), classDeleteLine(n.ifb, minor)];

/** The tc lines that take a server's shaping from nothing to these peers and spare slots (after resetLines). */
export function installTcLines(n: ShapingNames, peers: Iterable<ShapedPeer>, spares: Iterable<number> = []): string[] {
  const lines = [
    `qdisc add dev ${n.ifname} root handle 1: htb direct_qlen 1000`,
    `qdisc add dev ${n.ifb} root handle 1: htb direct_qlen 1000`,
  ];
  for (const p of peers) lines.push(...slotLines(n, p.minor, p.down, p.up));
  for (const m of spares) lines.push(...slotLines(n, m, null, null));
  return lines;
}

/** Removes the tunnel's root qdisc (the IFB goes with its link); fails harmlessly when there is none. */
export const resetTcLines = (n: ShapingNames): string[] => [`qdisc del dev ${n.ifname} root`];

/** A server's four maps: download (d) and upload (u), IPv4 and IPv6. */
export type Dir = 'd4' | 'd6' | 'u4' | 'u6';
export const DIRS: readonly Dir[] = ['d4', 'd6', 'u4', 'u6'];
export const mapOf = (n: ShapingNames, d: Dir): string => `${n.prefix}_${d}`;

/** A peer's map elements: one a direction it is limited in and a family it has, in the maps' order. */
export function peerElements(p: Pick<ShapedPeer, 'ip' | 'ip6' | 'down' | 'up'>): { dir: Dir; addr: string }[] {
  const out: { dir: Dir; addr: string }[] = [];
  if (p.down !== null) { out.push({ dir: 'd4', addr: p.ip }); if (p.ip6) out.push({ dir: 'd6', addr: p.ip6 }); }
  if (p.up !== null) { out.push({ dir: 'u4', addr: p.ip }); if (p.ip6) out.push({ dir: 'u6', addr: p.ip6 }); }
  return out;
}

/** The nft lines that remove a server's chains and maps, whether they exist or not. */
export function resetNftLines(n: ShapingNames): string[] {
  const lines = [`add table ${SHAPING_TABLE}`];
  for (const c of ['in', 'out']) {
    const chain = `${SHAPING_TABLE} ${n.prefix}_${c}`;
    lines.push(`add chain ${chain}`, `flush chain ${chain}`, `delete chain ${chain}`);
  }
  for (const d of DIRS) {
    const type = d.endsWith('4') ? 'ipv4_addr' : 'ipv6_addr';
    lines.push(`add map ${SHAPING_TABLE} ${mapOf(n, d)} { type ${type} : classid; }`, `delete map ${SHAPING_TABLE} ${mapOf(n, d)}`);
  }
  return lines;
}

/** The nft lines that make a server's maps and chains, holding these peers. */
export function installNftLines(n: ShapingNames, peers: Iterable<ShapedPeer>): string[] {
  const t = SHAPING_TABLE;
  const lines: string[] = [];
  for (const d of DIRS) lines.push(`add map ${t} ${mapOf(n, d)} { type ${d.endsWith('4') ? 'ipv4_addr' : 'ipv6_addr'} : classid; }`);
  lines.push(
    `add chain ${t} ${n.prefix}_out { type filter hook egress device "${n.ifname}" priority 0; }`,
    `add rule ${t} ${n.prefix}_out meta protocol ip meta priority set ip daddr map @${mapOf(n, 'd4')}`,
    `add rule ${t} ${n.prefix}_out meta protocol ip6 meta priority set ip6 daddr map @${mapOf(n, 'd6')}`,
    `add chain ${t} ${n.prefix}_in { type filter hook ingress device "${n.ifname}" priority 0; }`,
    `add rule ${t} ${n.prefix}_in meta protocol ip meta priority set ip saddr map @${mapOf(n, 'u4')} fwd to "${n.ifb}"`,
    `add rule ${t} ${n.prefix}_in meta protocol ip6 meta priority set ip6 saddr map @${mapOf(n, 'u6')} fwd to "${n.ifb}"`,
  );
  for (const p of peers) lines.push(...elementLines('add', n, p));
  return lines;
}

/** A peer's map elements, added or deleted: one a family and direction it is limited in. */
export function elementLines(op: 'add' | 'delete', n: ShapingNames, p: ShapedPeer): string[] {
  return peerElements(p).map(({ dir, addr }) => `${op} element ${SHAPING_TABLE} ${mapOf(n, dir)} { ${addr}${op === 'add' ? ` : ${classIdOf(p.minor)}` : ''} }`);
}

/**
 * What one peer's change runs, from how it was shaped to how it will be (either may be null:
 * not limited). `tc` (its slot's classes made or changed) goes before `nft` (its addresses in
 * or out of the maps), so that no element names a class that is not there. A peer keeps its
 * minor while it is limited at all; a slot it leaves stays (the shaper keeps it as a spare).
 */
export function peerDelta(n: ShapingNames, was: ShapedPeer | null, will: ShapedPeer | null): { tc: string[]; nft: string[] } {
  const nft: string[] = [];
  const tc: string[] = [];
  const sameElements = was && will && was.ip === will.ip && was.ip6 === will.ip6 && was.minor === will.minor
    && (was.down === null) === (will.down === null) && (was.up === null) === (will.up === null);
  if (!sameElements) {
    if (was) nft.push(...elementLines('delete', n, was));
    if (will) nft.push(...elementLines('add', n, will));
  }
  if (will && (!was || was.minor !== will.minor)) tc.push(...slotLines(n, will.minor, will.down, will.up));
  else if (will && was) {
    if (will.down !== was.down) tc.push(...classLines(n.ifname, will.minor, will.down ?? PARK_MBPS));
    if (will.up !== was.up) tc.push(...classLines(n.ifb, will.minor, will.up ?? PARK_MBPS));
  }
  return { tc, nft };
}
