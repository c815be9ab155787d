// IPv6 arithmetic for tunnel prefixes: parsing any valid form, RFC 5952 output, containment
// and unique local prefixes (RFC 4193). Addresses are 128-bit BigInts.

export interface Cidr6 { ip: bigint; prefix: number }

const ALL = (1n << 128n) - 1n;

function parseV4Tail(text: string): number[] | null {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (!m) return null;
  const b = m.slice(1).map(Number);
  if (b.some((x, i) => x > 255 || (m[i + 1].length > 1 && m[i + 1].startsWith('0')))) return null;
  return [(b[0] << 8) | b[1], (b[2] << 8) | b[3]];
}

function groupsOf(part: string): number[] | null {
  if (part === '') return [];
  const out: number[] = [];
  const items = part.split(':');
  for (let i = 0; i < items.length; i++) {
    const g = items[i];
    if (i === items.length - 1 && g.includes('.')) {
      const v4 = parseV4Tail(g);
      if (!v4) return null;
      out.push(...v4);
    } else {
      if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return null;
      out.push(parseInt(g, 16));
    }
  }
  return out;
}

/** An IPv6 address in any valid text form (compressed, full, with an IPv4 tail), or null. */
export function parseIpv6(text: string): bigint | null {
  if (!/^[0-9a-fA-F:.]+$/.test(text) || text.length > 45) return null;
  const halves = text.split('::');
  if (halves.length > 2) return null;
  let groups: number[];
  if (halves.length === 2) {
    const head = groupsOf(halves[0]);
    const tail = groupsOf(halves[1]);
    if (!head || !tail || head.length + tail.length > 7) return null;
    groups = [...head, ...new Array(8 - head.length - tail.length).fill(0), ...tail];
  } else {
    const all = groupsOf(text);
    if (!all || all.length !== 8) return null;
    groups = all;
  }
  return groups.reduce((n, g) => (n << 16n) | BigInt(g), 0n);
}

/** RFC 5952: lowercase, no leading zeros, the longest run of two or more zero groups as "::" (the first on a tie). */
export function formatIpv6(n: bigint): string {
  const groups: number[] = [];
  for (let i = 7; i >= 0; i--) groups.push(Number((n >> BigInt(i * 16)) & 0xffffn));
  let best = -1;
  let bestLen = 1;
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) { i++; continue; }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen) { best = i; bestLen = j - i; }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (best < 0) return hex.join(':');
  return `${hex.slice(0, best).join(':')}::${hex.slice(best + bestLen).join(':')}`;
}

export function parseCidr6(text: string): Cidr6 | null {
  const m = /^([^/]+)\/(\d{1,3})$/.exec(text);
  if (!m) return null;
  const ip = parseIpv6(m[1]);
  const prefix = Number(m[2]);
  if (ip === null || prefix > 128 || (m[2].length > 1 && m[2].startsWith('0'))) return null;
  return { ip, prefix };
}

export const maskOf6 = (prefix: number): bigint => (prefix === 0 ? 0n : (ALL << BigInt(128 - prefix)) & ALL);
export const networkOf6 = (c: Cidr6): bigint => c.ip & maskOf6(c.prefix);
export const lastOf6 = (c: Cidr6): bigint => networkOf6(c) | (~maskOf6(c.prefix) & ALL);
export const formatCidr6 = (c: Cidr6): string => `${formatIpv6(c.ip)}/${c.prefix}`;
export const formatNetwork6 = (c: Cidr6): string => `${formatIpv6(networkOf6(c))}/${c.prefix}`;
export const overlaps6 = (a: Cidr6, b: Cidr6): boolean => networkOf6(a) <= lastOf6(b) && networkOf6(b) <= lastOf6(a);

/** True when ip lies in the prefix and is not its subnet-router anycast address (host bits all zero). */
export function isHostOf6(c: Cidr6, ip: bigint): boolean {
  if ((ip & maskOf6(c.prefix)) !== networkOf6(c)) return false;
  return c.prefix >= 127 || ip !== networkOf6(c);
}

/** Unique local addresses (fc00::/7): masqueraded on the way out, never routed as they are. */
export const isUla = (ip: bigint): boolean => ip >> 121n === 0x7en;

/** The /64 of a 40-bit Global ID and a 16-bit subnet id: fdXX:XXXX:XXXX:SSSS::/64 (RFC 4193). */
export function ulaPrefix(globalId: bigint, subnetId: number): Cidr6 {
  const ip = (0xfdn << 120n) | ((globalId & 0xffffffffffn) << 80n) | (BigInt(subnetId & 0xffff) << 64n);
  return { ip, prefix: 64 };
}

/** The address `offset` places after the prefix's network address. */
export const hostAt6 = (c: Cidr6, offset: bigint): bigint => networkOf6(c) + offset;
