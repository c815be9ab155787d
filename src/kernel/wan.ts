// The router's WAN side: where port forwards apply. By default the interfaces that hold a
// default route (IPv4 or IPv6), read from /proc/net, which every Linux has; an operator may
// name them instead (WGCP_WAN_INTERFACES) for policy routing or several uplinks.
import fs from 'node:fs';

/** Interfaces of the default routes in /proc/net/route text (destination and mask 0). */
export function defaultRouteIfaces4(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split('\n').slice(1)) {
    const f = line.trim().split(/\s+/);
    if (f.length >= 8 && f[1] === '00000000' && f[7] === '00000000') out.push(f[0]);
  }
  return out;
}

/** Interfaces of the default routes in /proc/net/ipv6_route text (::/0 and not the loopback's unreachable). */
export function defaultRouteIfaces6(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split('\n')) {
    const f = line.trim().split(/\s+/);
    if (f.length >= 10 && /^0{32}$/.test(f[0]) && f[1] === '00' && f[9] !== 'lo') out.push(f[9]);
  }
  return out;
}

function readOr(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

/** The interfaces holding a default route in this network namespace, sorted, without repeats. */
export function detectWanInterfaces(): string[] {
  const names = [...defaultRouteIfaces4(readOr('/proc/net/route')), ...defaultRouteIfaces6(readOr('/proc/net/ipv6_route'))];
  return [...new Set(names)].sort();
}
