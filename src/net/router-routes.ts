// The router's own networks as its main routing table holds them: every route through an
// interface that is not a wgcp tunnel and not loopback (the LANs, the WAN's subnet), read
// from /proc/net/route and /proc/net/ipv6_route of wgcpd's network namespace. Default routes
// are left out (a peer's default route is refused on its own); so are IPv6 link-local and
// multicast routes, which every interface has and no peer could route.
import fs from 'node:fs';
import { formatIpv4 } from './ipv4';
import { formatIpv6 } from './ipv6';

export interface RouterRoute { prefix: string; dev: string }

const read = (file: string): string => { try { return fs.readFileSync(file, 'utf8'); } catch { return ''; } };

/** /proc's IPv4 hex is the address in the host's (little-endian) byte order. */
const hexIpv4 = (hex: string): number => {
  const n = parseInt(hex, 16);
  return (((n & 0xff) << 24) | (((n >>> 8) & 0xff) << 16) | (((n >>> 16) & 0xff) << 8) | (n >>> 24)) >>> 0;
};
const bits = (mask: number): number => { let c = 0; for (let m = mask; m; m >>>= 1) c += m & 1; return c; };

export function routerRoutes(skip: ReadonlySet<string>, procNet = '/proc/net'): RouterRoute[] {
  const out: RouterRoute[] = [];
  for (const line of read(`${procNet}/route`).split('\n').slice(1)) {
    const [dev, dest, , , , , , mask] = line.trim().split(/\s+/);
    if (!dev || !mask || skip.has(dev) || dev === 'lo') continue;
    const prefix = bits(hexIpv4(mask));
    if (prefix === 0) continue;
    out.push({ prefix: `${formatIpv4(hexIpv4(dest))}/${prefix}`, dev });
  }
  for (const line of read(`${procNet}/ipv6_route`).split('\n')) {
    const cols = line.trim().split(/\s+/);
    if (cols.length < 10) continue;
    const dev = cols[9];
    const prefix = parseInt(cols[1], 16);
    if (skip.has(dev) || dev === 'lo' || prefix === 0) continue;
    const ip = BigInt(`0x${cols[0]}`);
    if (ip >> 118n === 0x3fan || ip >> 120n === 0xffn) continue;
    out.push({ prefix: `${formatIpv6(ip)}/${prefix}`, dev });
  }
  return out;
}
