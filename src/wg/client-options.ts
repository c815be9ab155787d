// What the client's own .conf says beyond its keys and address: DNS, what it routes into the
// tunnel, its keepalive and MTU. Each server holds defaults; a peer may override each one
// (null: the server's default). Pure: the resolver check is handed in.
import { formatNetwork, parseCidr } from '../net/ipv4';
import { formatNetwork6, parseCidr6 } from '../net/ipv6';

/** `full`: everything; `split`: the server's networks (and the routed networks it may reach); or given prefixes. */
export type ClientRoutes = 'full' | 'split' | string[];

export interface PeerClientOptions {
  /** null: the server's default; []: no DNS line. */
  dns?: string[] | null;
  clientAllowedIPs?: ClientRoutes | null;
  /** Seconds; 0 leaves the keepalive out (off). */
  persistentKeepalive?: number | null;
  mtu?: number | null;
}

export interface ServerClientDefaults {
  address: string;
  address6?: string | null;
  /** `auto`: the router's resolver on the tunnel address when one listens there, else none; '': none; or addresses. */
  dns: string;
  mtu: number | null;
  /** null: by the peer's allowInternet (full when it may use the internet, split otherwise). */
  clientAllowedIPs?: ClientRoutes | null;
  persistentKeepalive?: number;
}

export const AUTO_DNS = 'auto';
export const DEFAULT_KEEPALIVE = 25;
export const FULL_TUNNEL = '0.0.0.0/0, ::/0';

/** The server's own networks, as a client routes them in split mode. */
export function serverNetworks(server: Pick<ServerClientDefaults, 'address' | 'address6'>): string[] {
  const cidr = parseCidr(server.address);
  if (!cidr) throw new Error(`server address ${server.address} is not a CIDR`);
  const prefix6 = server.address6 ? parseCidr6(server.address6) : null;
  return prefix6 ? [formatNetwork(cidr), formatNetwork6(prefix6)] : [formatNetwork(cidr)];
}

export const tunnelIp = (address: string): string => address.split('/')[0];

/**
 * The client's AllowedIPs line value. Split is the server's networks and the prefixes of the
 * router's networks the peer may reach (lanAccess; "lan" names none: the client's own routes decide).
 */
export function clientRoutesText(server: ServerClientDefaults, peer: PeerClientOptions & { allowInternet: boolean; lanAccess?: 'lan' | string[] }): string {
  const routes = peer.clientAllowedIPs ?? server.clientAllowedIPs ?? (peer.allowInternet ? 'full' : 'split');
  if (routes === 'full') return FULL_TUNNEL;
  if (routes === 'split') return [...serverNetworks(server), ...(peer.lanAccess === 'lan' ? [] : peer.lanAccess ?? [])].join(', ');
  return routes.join(', ');
}

/** The DNS servers the client is given ([]: none); `resolverListens` says whether a resolver answers on the tunnel address. */
export function clientDns(server: ServerClientDefaults, peer: PeerClientOptions, resolverListens: (ip: string) => boolean): string[] {
  if (peer.dns !== undefined && peer.dns !== null) return peer.dns;
  if (server.dns === AUTO_DNS) {
    const ip = tunnelIp(server.address);
    return resolverListens(ip) ? [ip] : [];
  }
  return splitList(server.dns);
}

export const clientKeepalive = (server: ServerClientDefaults, peer: PeerClientOptions): number =>
  peer.persistentKeepalive ?? server.persistentKeepalive ?? DEFAULT_KEEPALIVE;

export const clientMtu = (server: ServerClientDefaults, peer: PeerClientOptions): number | null => peer.mtu ?? server.mtu;

export const splitList = (text: string): string[] => text.split(',').map((s) => s.trim()).filter((s) => s !== '');

// Stored as text: null stays null (the server's default), a list as "a, b", none as ''.
export const listText = (list: string[] | null | undefined): string | null => (list == null ? null : list.join(', '));
export const listOf = (text: string | null): string[] | null => (text === null ? null : splitList(text));
export const routesText = (r: ClientRoutes | null | undefined): string | null => (r == null ? null : typeof r === 'string' ? r : r.join(', '));
export const routesOf = (text: string | null): ClientRoutes | null => (text === null ? null : text === 'full' || text === 'split' ? text : splitList(text));
