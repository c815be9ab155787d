// The router's own networks as the packet filter's `router_nets` sets hold them: each route
// of the main table through an interface that is not a tunnel nor loopback (router-routes.ts),
// but on the WAN side (the interfaces of the default routes) only private ones (RFC 1918,
// unique local): the modem's LAN, or the LAN of a router with one interface, while a public
// WAN subnet is the internet's. Less those inside another (an interval set cannot hold two
// that overlap). They are what "the LAN" means to lanAccess and reachableFrom, and what the
// internet is not.
import { parseCidr, maskOf, networkOf } from './ipv4';
import { networkOf6, parseCidr6 } from './ipv6';
import { routerRoutes } from './router-routes';

/** Whether prefix `outer` holds every address of `inner` (same family). */
export function holds(outer: string, inner: string): boolean {
  const o4 = parseCidr(outer);
  const i4 = parseCidr(inner);
  if (o4 && i4) return o4.prefix <= i4.prefix && ((networkOf(i4) & maskOf(o4.prefix)) >>> 0) === networkOf(o4);
  const o6 = parseCidr6(outer);
  const i6 = parseCidr6(inner);
  if (!o6 || !i6) return false;
  return o6.prefix <= i6.prefix && networkOf6({ ip: i6.ip, prefix: o6.prefix }) === networkOf6(o6);
}

/** The outermost of these prefixes, without repeats: none held by another. */
export function outermost(prefixes: readonly string[]): string[] {
  const unique = [...new Set(prefixes)];
  return unique.filter((p) => !unique.some((q) => q !== p && holds(q, p)));
}

const PRIVATE = ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'];
export const isPrivatePrefix = (prefix: string): boolean => PRIVATE.some((p) => holds(p, prefix));

/** The router's networks now, seen from wgcpd's namespace, leaving out the interfaces in `skip` (the tunnels); `wan`: the WAN interfaces. */
export function routerNets(skip: ReadonlySet<string>, wan: ReadonlySet<string>, procNet?: string): string[] {
  return outermost(routerRoutes(skip, procNet).filter((r) => !wan.has(r.dev) || isPrivatePrefix(r.prefix)).map((r) => r.prefix));
}
