// IP addresses as bytes, whatever their spelling: an IPv4-mapped IPv6 address is the IPv4
// address it carries (a dual-stack socket connects to that one), so rules match either form.
// The text is read by the one parser of each family (ipv4.ts, ipv6.ts).
import { parseIpv4 } from './ipv4';
import { parseIpv6 } from './ipv6';

export interface IpAddress { family: 4 | 6; bytes: number[] }

const bytesOf = (n: bigint): number[] => Array.from({ length: 16 }, (_, i) => Number((n >> BigInt((15 - i) * 8)) & 0xffn));

const MAPPED_PREFIX = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff];

/** Parses a literal address (brackets and an IPv6 zone are dropped); null when it is not one. */
export function parseIp(text: string): IpAddress | null {
  const plain = text.replace(/^\[(.*)\]$/, '$1').split('%')[0];
  const v4 = parseIpv4(plain);
  if (v4 !== null) return { family: 4, bytes: [v4 >>> 24, (v4 >>> 16) & 255, (v4 >>> 8) & 255, v4 & 255] };
  const v6 = parseIpv6(plain);
  if (v6 === null) return null;
  const bytes = bytesOf(v6);
  if (MAPPED_PREFIX.every((b, i) => bytes[i] === b)) return { family: 4, bytes: bytes.slice(12) };
  return { family: 6, bytes };
}

/** Whether the first `bits` bits of `ip` equal those of `prefix` (same family only). */
export function inPrefix(ip: IpAddress, prefix: IpAddress, bits: number): boolean {
  if (ip.family !== prefix.family) return false;
  for (let i = 0; i < bits; i++) {
    const mask = 0x80 >> (i % 8);
    if ((ip.bytes[i >> 3] & mask) !== (prefix.bytes[i >> 3] & mask)) return false;
  }
  return true;
}

export function sameIp(a: IpAddress, b: IpAddress): boolean {
  return a.family === b.family && a.bytes.every((x, i) => x === b.bytes[i]);
}

export function isUnspecified(ip: IpAddress): boolean {
  return ip.bytes.every((b) => b === 0);
}

/** Dotted IPv4, or IPv6 in its shortest form (the URL parser's canonical one). */
export function formatIp(ip: IpAddress): string {
  if (ip.family === 4) return ip.bytes.join('.');
  const groups = [];
  for (let i = 0; i < 16; i += 2) groups.push(((ip.bytes[i] << 8) | ip.bytes[i + 1]).toString(16));
  return new URL(`http://[${groups.join(':')}]/`).hostname.slice(1, -1);
}

/** 127.0.0.0/8 or ::1: traffic that never leaves the host. */
export function isLoopback(ip: IpAddress): boolean {
  return ip.family === 4 ? ip.bytes[0] === 127 : ip.bytes.slice(0, 15).every((b) => b === 0) && ip.bytes[15] === 1;
}
