// Where webhooks and SMTP may not connect: link-local and cloud metadata addresses, the
// unspecified address (it means "this host"), and wgcpd's own listeners. Loopback and the
// private ranges stay allowed: a receiver on the router or on the LAN is a normal use.
// Pure: the live facts (listeners, the host's addresses) are handed in.
import { formatIp, inPrefix, isLoopback, isUnspecified, parseIp, sameIp, type IpAddress } from './ip-address';

export interface Endpoint { address: string; port: number }
export interface GuardFacts {
  /** wgcpd's listeners as bound (an unspecified address means every address of the host). */
  listeners: Endpoint[];
  /** The host's own addresses, which a listener on 0.0.0.0 or :: also answers on. */
  localAddresses: string[];
}

export interface Refusal { target: string; what: string }

const LINK_LOCAL = 'a link-local address';
const UNSPECIFIED = 'an unspecified address';
const METADATA = 'a cloud metadata address';
const RANGES: [string, number, string][] = [
  ['0.0.0.0', 8, UNSPECIFIED], ['::', 128, UNSPECIFIED],
  // 169.254.169.254 answers cloud metadata (with credentials) on most providers.
  ['169.254.0.0', 16, LINK_LOCAL], ['fe80::', 10, LINK_LOCAL],
  ['100.100.100.200', 32, METADATA], ['fd00:ec2::254', 128, METADATA],
];
const REFUSED = RANGES.map(([p, bits, what]) => ({ prefix: parseIp(p)!, bits, what }));
const NAT64 = parseIp('64:ff9b::')!;

/** The address a NAT64 gateway would connect to, or the address itself. */
function throughNat64(ip: IpAddress): IpAddress {
  return inPrefix(ip, NAT64, 96) ? { family: 4, bytes: ip.bytes.slice(12) } : ip;
}

function reaches(listener: Endpoint, ip: IpAddress, port: number, locals: IpAddress[]): boolean {
  const bound = parseIp(listener.address);
  if (!bound || listener.port !== port) return false;
  if (!isUnspecified(bound)) return sameIp(bound, ip);
  return isLoopback(ip) || locals.some((l) => sameIp(l, ip));
}

const hostPort = (ip: IpAddress, port: number) => (ip.family === 6 ? `[${formatIp(ip)}]:${port}` : `${formatIp(ip)}:${port}`);

/** Why a connection to this literal address and port is refused, or null when it is allowed. */
export function refusalOf(address: string, port: number, facts: GuardFacts): Refusal | null {
  const parsed = parseIp(address);
  if (!parsed) return null;
  const ip = throughNat64(parsed);
  const range = REFUSED.find((r) => inPrefix(ip, r.prefix, r.bits));
  if (range) return { target: formatIp(parsed), what: range.what };
  const locals = facts.localAddresses.map(parseIp).filter((l): l is IpAddress => l !== null);
  if (facts.listeners.some((l) => reaches(l, ip, port, locals))) return { target: hostPort(ip, port), what: "wgcpd's own listener" };
  return null;
}

/** A host as the URL parser reads it (2852039166 and 0xa9.254.169.254 are 169.254.169.254), without a final dot. */
export function canonicalHost(host: string): string {
  const bracketed = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  let name = host;
  try { name = new URL(`http://${bracketed}/`).hostname; } catch { /* not a URL host: judged as given */ }
  return name.replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '');
}

/** RFC 6761: these names always mean the loopback interface. */
export function isLocalhostName(name: string): boolean {
  return name === 'localhost' || name.endsWith('.localhost');
}

/**
 * The check on input, before any name is resolved: literal addresses in every spelling and
 * the localhost names. Other names are checked at delivery, once resolved.
 */
export function hostRefusal(host: string, port: number, facts: GuardFacts): Refusal | null {
  const name = canonicalHost(host).toLowerCase();
  if (isLocalhostName(name)) return refusalOf('127.0.0.1', port, facts) ?? refusalOf('::1', port, facts);
  return refusalOf(name, port, facts);
}

export function urlPort(url: URL): number {
  return url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
}

/** For a 400 naming the field: "url must not point to a link-local address (169.254.169.254)". */
export const inputRefusalText = (r: Refusal) => `must not point to ${r.what} (${r.target})`;
/** For a delivery log or a 502: "refused: 169.254.169.254 is a link-local address". */
export const deliveryRefusalText = (r: Refusal) => `refused: ${r.target} is ${r.what}`;
