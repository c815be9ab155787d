// IPv4 arithmetic for tunnel subnets: parsing, containment and free-address allocation.

export interface Cidr { ip: number; prefix: number }

export function parseIpv4(text: string): number | null {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (!m) return null;
  const parts = m.slice(1).map(Number);
  if (parts.some((p, i) => p > 255 || (m[i + 1].length > 1 && m[i + 1].startsWith('0')))) return null;
  return ((parts[0] << 24) | (parts[1] << 16) | (parts[2] << 8) | parts[3]) >>> 0;
}

export function formatIpv4(n: number): string {
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
}

export function parseCidr(text: string): Cidr | null {
  const m = /^([^/]+)\/(\d{1,2})$/.exec(text);
  if (!m) return null;
  const ip = parseIpv4(m[1]);
  const prefix = Number(m[2]);
  if (ip === null || prefix > 32) return null;
  return { ip, prefix };
}

export const maskOf = (prefix: number): number => (prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0);
export const networkOf = (c: Cidr): number => (c.ip & maskOf(c.prefix)) >>> 0;
export const broadcastOf = (c: Cidr): number => (networkOf(c) | (~maskOf(c.prefix) >>> 0)) >>> 0;
export const formatNetwork = (c: Cidr): string => `${formatIpv4(networkOf(c))}/${c.prefix}`;

/** True when ip is a usable host address of the subnet (not its network or broadcast address). */
export function isHostOf(c: Cidr, ip: number): boolean {
  if (((ip & maskOf(c.prefix)) >>> 0) !== networkOf(c)) return false;
  if (c.prefix >= 31) return true;
  return ip !== networkOf(c) && ip !== broadcastOf(c);
}

/** The lowest host address of the subnet not in `used`, or null when the subnet is full. */
export function firstFreeHost(c: Cidr, used: Iterable<string>): string | null {
  const taken = new Set<number>();
  for (const u of used) {
    const n = parseIpv4(u);
    if (n !== null) taken.add(n);
  }
  const first = c.prefix >= 31 ? networkOf(c) : networkOf(c) + 1;
  const last = c.prefix >= 31 ? broadcastOf(c) : broadcastOf(c) - 1;
  for (let n = first; n <= last; n++) if (!taken.has(n)) return formatIpv4(n);
  return null;
}
