// Whether a DNS resolver listens on an address of this host: a UDP socket bound (or a TCP
// socket listening) on that address or on the wildcard, port 53, as /proc/net lists them for
// the network namespace wgcpd runs in (the router's). The clients' default DNS is the
// router's resolver only when one is there: a DNS line naming an address where nothing
// answers breaks every name lookup of a full-tunnel client.
import fs from 'node:fs';
import { parseIpv4 } from './ipv4';

const UDP_BOUND = '07';
const TCP_LISTEN = '0A';

/** /proc/net's hex of an IPv4 address: the 32-bit number in the host's (little-endian) byte order. */
function hex4(ip: string): string | null {
  const n = parseIpv4(ip);
  if (n === null) return null;
  const b = [n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, n >>> 24];
  return b.map((x) => x.toString(16).padStart(2, '0')).join('').toUpperCase();
}

function listening(file: string, state: string, addresses: Set<string>, port: number): boolean {
  let text: string;
  try { text = fs.readFileSync(file, 'utf8'); } catch { return false; }
  const portHex = port.toString(16).toUpperCase().padStart(4, '0');
  for (const line of text.split('\n').slice(1)) {
    const cols = line.trim().split(/\s+/);
    if (cols.length < 4 || cols[3] !== state) continue;
    const [addr, p] = cols[1].split(':');
    if (p === portHex && addresses.has(addr)) return true;
  }
  return false;
}

/** True when something answers DNS on `ip` (IPv4) at `port`: bound there or on a wildcard, over UDP or TCP. */
export function resolverListens(ip: string, opts: { port?: number; procNet?: string } = {}): boolean {
  const port = opts.port ?? 53;
  const dir = opts.procNet ?? '/proc/net';
  const own = hex4(ip);
  if (own === null) return false;
  const v4 = new Set([own, '00000000']);
  // A socket on [::] takes IPv4 too unless it is IPv6-only; it is counted (dnsmasq and unbound bind it so).
  const v6 = new Set(['00000000000000000000000000000000', `0000000000000000FFFF0000${own}`]);
  return listening(`${dir}/udp`, UDP_BOUND, v4, port) || listening(`${dir}/tcp`, TCP_LISTEN, v4, port)
    || listening(`${dir}/udp6`, UDP_BOUND, v6, port) || listening(`${dir}/tcp6`, TCP_LISTEN, v6, port);
}

// A heartbeat of every device asks this: /proc is read at most once a few seconds.
const CACHE_MS = 5_000;
const seen = new Map<string, { at: number; listens: boolean }>();

/** resolverListens on port 53, as seen within the last few seconds. */
export function resolverListensNow(ip: string): boolean {
  const now = Date.now();
  const hit = seen.get(ip);
  if (hit && now - hit.at < CACHE_MS) return hit.listens;
  const listens = resolverListens(ip);
  seen.set(ip, { at: now, listens });
  return listens;
}
