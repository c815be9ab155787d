// The IPv6 rules of a server: its prefix overlaps no other server's, keeps its peers'
// addresses, and a new server gets a unique local /64 of the router's Global ID.
import type { Store } from '../store/store';
import type { ServerRecord } from '../store/servers';
import { freeUlaPrefix, ulaGlobalId } from '../store/ipv6-backfill';
import { formatIpv6, hostAt6, isHostOf6, overlaps6, parseCidr6, parseIpv6, type Cidr6 } from '../net/ipv6';
import { badField } from './field-error';

const prefixesOf = (store: Store, selfId?: number): Cidr6[] => store.servers.list()
  .filter((s) => s.id !== selfId && s.address6 !== null)
  .map((s) => parseCidr6(s.address6!)!);

/** The next unique local /64 no server holds, as the server's own address `<prefix>::1/64`. */
export function nextFreeAddress6(store: Store): string {
  const prefix = freeUlaPrefix(ulaGlobalId(store.db), prefixesOf(store));
  if (!prefix) throw badField('address6', 'is required: no free unique local /64 is left');
  return `${formatIpv6(hostAt6(prefix, 1n))}/64`;
}

export function checkServer6(store: Store, s: Pick<ServerRecord, 'address6'> & { id?: number }): void {
  const peerIps = s.id === undefined ? [] : store.peers.usedIp6s(s.id);
  if (s.address6 === null) {
    if (peerIps.length > 0) throw badField('address6', 'cannot be removed while peers hold IPv6 addresses');
    return;
  }
  const mine = parseCidr6(s.address6)!;
  const other = store.servers.list().find((o) => o.id !== s.id && o.address6 !== null && overlaps6(parseCidr6(o.address6)!, mine));
  if (other) throw badField('address6', `${s.address6} overlaps the prefix of server ${other.id}`);
  if (s.id === undefined) return;
  if (peerIps.length < store.peers.counts(s.id).total) throw badField('address6', 'can be added only while the server has no peers');
  for (const ip of peerIps) {
    const n = parseIpv6(ip)!;
    if (!isHostOf6(mine, n)) throw badField('address6', `${s.address6} does not contain peer address ${ip}`);
    if (n === mine.ip) throw badField('address6', `${s.address6} is the address of a peer`);
  }
}
