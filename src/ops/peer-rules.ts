// The rules a peer must keep on its server: the address a free host of the server's subnet,
// the key unique on the server, allowAccess ids peers of the same server. Checked inside
// the operation's transaction, against the state as it stands there.
import type { Store } from '../store/store';
import type { ServerRecord } from '../store/servers';
import { formatIpv4, isHostOf, parseCidr, parseIpv4 } from '../wg/ipv4';
import { badField } from './field-error';

export const GB = 1024 ** 3;

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

/** The lowest free host address of the server's subnet, skipping the server's own. */
export function allocatePeerIp(store: Store, server: ServerRecord, firstFree: (used: string[]) => string | null): string {
  const subnet = parseCidr(server.address)!;
  const ip = firstFree([...store.peers.usedIps(server.id), formatIpv4(subnet.ip)]);
  if (ip === null) throw badField('ip', `no free address is left in ${server.address}`);
  return ip;
}
