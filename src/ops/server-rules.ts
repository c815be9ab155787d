// The rules a server keeps among the others: interface names, listen ports and tunnel
// subnets are each held by one server only, and a subnet keeps its peers' addresses.
import type { Store } from '../store/store';
import type { ServerRecord } from '../store/servers';
import { parseCidr, parseIpv4, isHostOf, networkOf, broadcastOf, formatIpv4, type Cidr } from '../net/ipv4';
import { badField } from './field-error';

export { endpointPort } from './value-rules';

const overlaps = (a: Cidr, b: Cidr): boolean => networkOf(a) <= broadcastOf(b) && networkOf(b) <= broadcastOf(a);

/** The first 10.<n>.0.1/24 whose subnet no server holds. */
export function nextFreeAddress(store: Store): string {
  const taken = store.servers.list().map((s) => parseCidr(s.address)!);
  for (let n = 1; n < 256; n++) {
    const c = { ip: ((10 << 24) | (n << 16) | 1) >>> 0, prefix: 24 };
    if (!taken.some((t) => overlaps(t, c))) return `${formatIpv4(c.ip)}/24`;
  }
  throw badField('address', 'is required: no free 10.<n>.0.0/24 subnet is left');
}

/** Refuses a server whose interface, port or subnet another server holds, or whose subnet leaves out its peers. */
export function checkServerConflicts(store: Store, s: Omit<ServerRecord, 'id'> & { id?: number }): void {
  const mine = parseCidr(s.address)!;
  for (const other of store.servers.list()) {
    if (other.id === s.id) continue;
    if (other.interface === s.interface) throw badField('interface', `"${s.interface}" is already used by server ${other.id}`);
    if (other.listenPort === s.listenPort) throw badField('listenPort', `${s.listenPort} is already used by server ${other.id}`);
    if (overlaps(parseCidr(other.address)!, mine)) throw badField('address', `${s.address} overlaps the subnet of server ${other.id}`);
  }
  const forward = store.forwards.holder('udp', s.listenPort);
  if (forward !== undefined) throw badField('listenPort', `udp/${s.listenPort} is already forwarded by forward ${forward}`);
  // The peers fit the subnet they were given: only a new subnet reads them all.
  if (s.id === undefined || store.servers.get(s.id)?.address === s.address) return;
  for (const ip of store.peers.usedIps(s.id)) {
    const n = parseIpv4(ip)!;
    if (!isHostOf(mine, n)) throw badField('address', `${s.address} does not contain peer address ${ip}`);
    if (n === mine.ip) throw badField('address', `${s.address} is the address of a peer`);
  }
}

/** The default interface name wgcp<id>, or the first free variant when a server or a router's own link holds it. */
export function defaultInterfaceName(store: Store, id: number, heldByRouter: (name: string) => boolean = () => false): string {
  const used = new Set(store.servers.list().map((s) => s.interface));
  for (let i = 0; ; i++) {
    const name = i === 0 ? `wgcp${id}` : `wgcp${id}-${i}`;
    if (!used.has(name) && !heldByRouter(name)) return name;
  }
}
