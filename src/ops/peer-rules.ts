// The rules a peer must keep on its server: the address a free host of the server's subnet,
// the key unique on the server, allowAccess ids peers of the same server. Checked inside
// the operation's transaction, against the state as it stands there.
import type { Store } from '../store/store';
import type { ServerRecord } from '../store/servers';
import { isHostOf, networkOf, parseCidr, parseIpv4 } from '../net/ipv4';
import { formatIpv6, hostAt6, isHostOf6, parseCidr6, parseIpv6 } from '../net/ipv6';
import { badField } from './field-error';

/** Refuses an address outside the server's subnet, the server's own, or one another peer holds. */
export function checkPeerIp(store: Store, server: ServerRecord, ip: string, selfId: number | null): void {
  const subnet = parseCidr(server.address)!;
  const n = parseIpv4(ip)!;
  if (!isHostOf(subnet, n)) throw badField('ip', `${ip} is not a host address of the server subnet ${server.address}`);
  if (n === subnet.ip) throw badField('ip', `${ip} is the server's own address`);
  const holder = store.peers.idByIp(server.id, ip);
  if (holder !== undefined && holder !== selfId) throw badField('ip', `${ip} is already taken by peer ${holder}`);
}

export function checkPeerKey(store: Store, server: ServerRecord, key: string, selfId: number | null): void {
  if (key === server.publicKey) throw badField('publicKey', "is the server's own public key");
  const holder = store.peers.idByPublicKey(server.id, key);
  if (holder !== undefined && holder !== selfId) throw badField('publicKey', `is already used by peer ${holder}`);
}

export function checkAllowAccess(store: Store, server: ServerRecord, ids: number[], selfId: number | null): void {
  for (const id of ids) {
    if (id === selfId) throw badField('allowAccess', 'must not name the peer itself');
    if (store.peers.serverOf(id) !== server.id) throw badField('allowAccess', `names ${id}, which is not a peer of server ${server.id}`);
  }
}

/** The lowest free host address of the server's subnet, skipping the server's own; O(log n), never a read of every used one. */
export function allocatePeerIp(store: Store, server: ServerRecord): string {
  const ip = store.peers.lowestFreeIp(server);
  if (ip === null) throw badField('ip', `no free address is left in ${server.address}`);
  return ip;
}

/** Refuses an IPv6 address outside the server's prefix, the server's own, or one another peer holds. */
export function checkPeerIp6(store: Store, server: ServerRecord, ip6: string, selfId: number | null): void {
  if (server.address6 === null) throw badField('ip6', `cannot be set: server ${server.id} has no IPv6 prefix`);
  const prefix = parseCidr6(server.address6)!;
  const n = parseIpv6(ip6)!;
  if (!isHostOf6(prefix, n)) throw badField('ip6', `${ip6} is not a host address of the server prefix ${server.address6}`);
  if (n === prefix.ip) throw badField('ip6', `${ip6} is the server's own address`);
  const holder = store.peers.idByIp6(server.id, formatIpv6(n));
  if (holder !== undefined && holder !== selfId) throw badField('ip6', `${ip6} is already taken by peer ${holder}`);
}

/**
 * A new peer's IPv6 address: its IPv4 host number in the server's prefix (10.8.0.5 ->
 * <prefix>::5) when that one is free, else the lowest free address; null without a prefix.
 */
export function allocatePeerIp6(store: Store, server: ServerRecord, ip: string): string | null {
  if (server.address6 === null) return null;
  const prefix = parseCidr6(server.address6)!;
  const mirrored = hostAt6(prefix, BigInt((parseIpv4(ip)! - networkOf(parseCidr(server.address)!)) >>> 0));
  if (isHostOf6(prefix, mirrored) && mirrored !== prefix.ip && store.peers.idByIp6(server.id, formatIpv6(mirrored)) === undefined) return formatIpv6(mirrored);
  const lowest = store.peers.lowestFreeIp6(server);
  if (lowest === null) throw badField('ip6', `no free address is left in ${server.address6}`);
  return lowest;
}
