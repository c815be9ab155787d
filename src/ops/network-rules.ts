// The rules of the networks behind a peer (`networks`): real prefixes, no default route, and
// no overlap with what is routed elsewhere: any server's subnet or IPv6 prefix, another peer's
// networks, or the router's own networks (routes through its other interfaces: the LAN, the
// WAN's subnet, its own addresses). Two such prefixes would make one address reach two places.
import type { Store } from '../store/store';
import { networkOf, parseCidr, maskOf } from '../net/ipv4';
import { networkOf6, parseCidr6 } from '../net/ipv6';
import { badField } from './field-error';
import { routerRoutes, type RouterRoute } from '../net/router-routes';
import { holds } from '../net/router-nets';

/** Whether two prefixes (either family) share an address: one holds the other. */
export function overlaps(a: string, b: string): boolean {
  const a4 = parseCidr(a);
  const b4 = parseCidr(b);
  if (a4 && b4) {
    const p = Math.min(a4.prefix, b4.prefix);
    return ((networkOf(a4) & maskOf(p)) >>> 0) === ((networkOf(b4) & maskOf(p)) >>> 0);
  }
  const a6 = parseCidr6(a);
  const b6 = parseCidr6(b);
  if (!a6 || !b6) return false;
  const p = Math.min(a6.prefix, b6.prefix);
  return networkOf6({ ip: a6.ip, prefix: p }) === networkOf6({ ip: b6.ip, prefix: p });
}

/**
 * Refuses networks that break a rule; `routes` are the router's own (net/router-routes.ts).
 * Reads the servers and the peers that have networks: a check of one peer, not of every peer.
 */
export function checkPeerNetworks(store: Store, networks: readonly string[], selfId: number | null, routes: readonly RouterRoute[]): void {
  const refuse = (n: string, why: string) => { throw badField('networks', `${n} ${why}`); };
  for (const [i, n] of networks.entries()) {
    if ((parseCidr(n) ?? parseCidr6(n))!.prefix === 0) refuse(n, 'is a default route: the router would send everything to this peer');
    for (const other of networks.slice(i + 1)) if (overlaps(n, other)) refuse(n, `overlaps ${other}, given too`);
    for (const s of store.servers.list()) {
      for (const own of [s.address, s.address6]) if (own && overlaps(n, own)) refuse(n, `overlaps the subnet ${own} of server ${s.id}`);
    }
    for (const held of store.peers.networksHeld()) {
      if (held.id === selfId) continue;
      for (const other of held.networks) if (overlaps(n, other)) refuse(n, `overlaps ${other}, behind peer ${held.id}`);
    }
    for (const r of routes) if (overlaps(n, r.prefix)) refuse(n, `overlaps the router's own network ${r.prefix} (on ${r.dev})`);
  }
}

/**
 * Refuses a lanAccess that names what is not the router's: each prefix must lie inside one of
 * the router's own networks (`routes`), and no two given may overlap. "lan" is always right.
 */
export function checkLanAccess(lan: 'lan' | readonly string[], routes: readonly RouterRoute[]): void {
  if (lan === 'lan') return;
  checkNoOverlap('lanAccess', lan);
  for (const n of lan) {
    if (!routes.some((r) => holds(r.prefix, n))) {
      const nets = [...new Set(routes.map((r) => r.prefix))].join(', ') || 'none';
      throw badField('lanAccess', `${n} is not inside one of the router's networks (${nets}); "lan" for all of them`);
    }
  }
}

/** checkLanAccess against the router's routes as they stand now (the tunnels' own left out). */
export function checkLanAccessNow(store: Store, lan: 'lan' | readonly string[]): void {
  if (lan === 'lan' || lan.length === 0) return;
  checkLanAccess(lan, routerRoutes(new Set(store.servers.list().map((s) => s.interface))));
}

/** Refuses a reachableFrom whose prefixes overlap one another (the filter holds each pair once). */
export function checkReachableFrom(from: 'lan' | readonly string[]): void {
  if (from !== 'lan') checkNoOverlap('reachableFrom', from);
}

function checkNoOverlap(field: string, prefixes: readonly string[]): void {
  for (const [i, n] of prefixes.entries()) {
    for (const other of prefixes.slice(i + 1)) if (overlaps(n, other)) throw badField(field, `${n} overlaps ${other}, given too`);
  }
}
