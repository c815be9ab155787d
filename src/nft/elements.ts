// The policy of the `inet wgcp` table as plain element sets, each element already in nft
// syntax. Only validated addresses, ports and interface names ever become element text.
import { formatNetwork, parseCidr, parseIpv4, formatIpv4 } from '../net/ipv4';
import { formatIpv6, formatNetwork6, parseCidr6, parseIpv6 } from '../net/ipv6';
import { isInterfaceName } from '../wg/interface-name';

export interface PolicyElements {
  /** Interfaces of forward-mode servers: `"wgcp1"`. */
  tunnels: Set<string>;
  /** Each tunnel's own address, reachable from its peers: `"wgcp1" . 10.8.0.1`. */
  serverAddrs: Set<string>;
  /**
   * allowAccess, source . destination, new connections one way: `10.8.0.2 . 10.8.0.3`. A peer
   * stands for its address and its networks (`10.8.0.2 . 10.90.0.0/24`): WireGuard lets in
   * only sources in the peer's AllowedIPs, so a source address names its peer.
   */
  pairs: Set<string>;
  /** Peers (address and networks) whose traffic may go to the internet, masqueraded. */
  internet: Set<string>;
  /** lanAccess "lan": peers (address and networks) that may reach every network and address of the router. */
  lanAll: Set<string>;
  /** lanAccess prefixes: peer source . a prefix of the router's networks it may reach. */
  lanAccess: Set<string>;
  /** reachableFrom "lan": peers (address and networks) that hosts of the router's networks may open connections to. */
  reachLan: Set<string>;
  /** reachableFrom prefixes: source prefix . peer destination that it may open connections to. */
  reachFrom: Set<string>;
  /** The router's own networks (its routes through non-tunnel interfaces): the LAN side, not the internet. */
  routerNets: Set<string>;
  /**
   * The elements of pairs, internet, lanAll and reachLan that hold a network prefix, in
   * interval sets of their own (concatenated: see PAIRED_FIELD), so the sets that hold one
   * element per peer stay exact: a change there costs the same whatever the table holds.
   */
  pairsNets: Set<string>;
  internetNets: Set<string>;
  lanAllNets: Set<string>;
  reachLanNets: Set<string>;
  /** Device port forwards, `tcp . 8080` to `10.8.0.5 . 80`. */
  forwards: Map<string, string>;
  /** Interfaces of standalone servers: kept apart from forward-mode tunnels, both ways. */
  standalone: Set<string>;
  /** The router's WAN side: the only interfaces whose packets port forwards apply to. */
  wan: Set<string>;
  /** The IPv6 twins of serverAddrs, pairs, internet, the LAN sets and forwards. */
  serverAddrs6: Set<string>;
  pairs6: Set<string>;
  internet6: Set<string>;
  lanAll6: Set<string>;
  lanAccess6: Set<string>;
  reachLan6: Set<string>;
  reachFrom6: Set<string>;
  routerNets6: Set<string>;
  pairsNets6: Set<string>;
  internetNets6: Set<string>;
  lanAllNets6: Set<string>;
  reachLanNets6: Set<string>;
  forwards6: Map<string, string>;
  /** Site links' interfaces (this router joined another wgcp router, nft/site-link-policy.ts): filtered coming in. */
  siteLinks: Set<string>;
  /** Site links whose other side may open connections to this router's networks (reachableFrom "lan"). */
  siteReachLan: Set<string>;
  /** A site link's reachableFrom prefixes: `"wgcps1" . 192.168.71.0/24`, what its other side may open connections to. */
  siteReach: Set<string>;
  siteReach6: Set<string>;
}

export const SET_NAMES = {
  tunnels: 'tunnels', serverAddrs: 'server_addrs', pairs: 'pairs', internet: 'internet', forwards: 'port_forwards',
  standalone: 'standalone', wan: 'wan_ifaces',
  serverAddrs6: 'server_addrs6', pairs6: 'pairs6', internet6: 'internet6', forwards6: 'port_forwards6',
  lanAll: 'lan_all', lanAccess: 'lan_access', reachLan: 'reach_lan', reachFrom: 'reach_from', routerNets: 'router_nets',
  lanAll6: 'lan_all6', lanAccess6: 'lan_access6', reachLan6: 'reach_lan6', reachFrom6: 'reach_from6', routerNets6: 'router_nets6',
  pairsNets: 'pairs_nets', internetNets: 'internet_nets', lanAllNets: 'lan_all_nets', reachLanNets: 'reach_lan_nets',
  pairsNets6: 'pairs_nets6', internetNets6: 'internet_nets6', lanAllNets6: 'lan_all_nets6', reachLanNets6: 'reach_lan_nets6',
  siteLinks: 'site_links', siteReachLan: 'site_reach_lan', siteReach: 'site_reach', siteReach6: 'site_reach6',
} as const;

export const ELEMENT_SETS = ['tunnels', 'serverAddrs', 'pairs', 'internet', 'standalone', 'wan', 'serverAddrs6', 'pairs6', 'internet6',
  'lanAll', 'lanAccess', 'reachLan', 'reachFrom', 'routerNets', 'lanAll6', 'lanAccess6', 'reachLan6', 'reachFrom6', 'routerNets6',
  'pairsNets', 'internetNets', 'lanAllNets', 'reachLanNets', 'pairsNets6', 'internetNets6', 'lanAllNets6', 'reachLanNets6',
  'siteLinks', 'siteReachLan', 'siteReach', 'siteReach6'] as const;

/**
 * The sets of prefixes that match one address: each element is written with "any address"
 * beside it (`10.90.0.0/24 . 0.0.0.0/0`) and matched as `ip saddr . ip saddr`, so the set is
 * a concatenation of two addresses. nft 1.0.6 reads back every single-field interval set of
 * the whole ruleset before any element change (of any set, in any table); a concatenated one
 * it never reads. The second field is an address, not the packet's family: Debian 13's 6.12
 * kernel refuses `meta nfproto` in a concatenated lookup ("Operation not supported"), an
 * address pair loads on 6.1, 6.12 and 6.18 alike. PolicyElements holds the prefix alone: the
 * pair is made where elements are written (render, diff) and undone where they are read
 * (src/kernel/reconcile-nft.ts).
 */
export const PAIRED_FIELD: Partial<Record<keyof PolicyElements, 'ipv4' | 'ipv6'>> = {
  routerNets: 'ipv4', internetNets: 'ipv4', lanAllNets: 'ipv4', reachLanNets: 'ipv4',
  routerNets6: 'ipv6', internetNets6: 'ipv6', lanAllNets6: 'ipv6', reachLanNets6: 'ipv6',
};

const ANY = { ipv4: '0.0.0.0/0', ipv6: '::/0' } as const;

/** An element as nft reads it in the set of `field`. */
export function nftElement(field: keyof PolicyElements, element: string): string {
  const family = PAIRED_FIELD[field];
  return family ? `${element} . ${ANY[family]}` : element;
}

/** An element as nft lists it, back in the policy's syntax; null when it lacks the "any address" the set's layout puts beside it. */
export function policyElement(field: keyof PolicyElements, element: string): string | null {
  const family = PAIRED_FIELD[field];
  if (!family) return element;
  const tail = ` . ${ANY[family]}`;
  return element.endsWith(tail) ? element.slice(0, -tail.length) : null;
}

export function emptyElements(): PolicyElements {
  return {
    tunnels: new Set(), serverAddrs: new Set(), pairs: new Set(), internet: new Set(), forwards: new Map(), standalone: new Set(), wan: new Set(),
    serverAddrs6: new Set(), pairs6: new Set(), internet6: new Set(), forwards6: new Map(),
    lanAll: new Set(), lanAccess: new Set(), reachLan: new Set(), reachFrom: new Set(), routerNets: new Set(),
    lanAll6: new Set(), lanAccess6: new Set(), reachLan6: new Set(), reachFrom6: new Set(), routerNets6: new Set(),
    pairsNets: new Set(), internetNets: new Set(), lanAllNets: new Set(), reachLanNets: new Set(),
    pairsNets6: new Set(), internetNets6: new Set(), lanAllNets6: new Set(), reachLanNets6: new Set(),
    siteLinks: new Set(), siteReachLan: new Set(), siteReach: new Set(), siteReach6: new Set(),
  };
}

/**
 * A prefix as an element of an interval set, as nft lists it back: the network
 * (`10.90.0.0/24`), a single host as its address alone (`10.8.0.2`, `fd00::2`).
 */
export function prefixElement(prefix: string): string {
  const v4 = parseCidr(prefix);
  if (v4) return v4.prefix === 32 ? formatIpv4(v4.ip) : formatNetwork(v4);
  const v6 = parseCidr6(prefix);
  if (v6) return v6.prefix === 128 ? formatIpv6(v6.ip) : formatNetwork6(v6);
  throw new Error(`${JSON.stringify(prefix)} is not a prefix`);
}

export const isPrefix6 = (prefix: string): boolean => prefix.includes(':');


export function ifnameElement(name: string): string {
  if (!isInterfaceName(name)) throw new Error(`interface name ${JSON.stringify(name)} is not allowed in the packet filter`);
  return `"${name}"`;
}

export function ipElement(ip: string): string {
  const n = parseIpv4(ip);
  if (n === null) throw new Error(`${JSON.stringify(ip)} is not an IPv4 address`);
  return formatIpv4(n);
}

export function portElement(port: number): string {
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`${port} is not a port number`);
  return String(port);
}

export function protoElement(proto: string): string {
  if (proto !== 'tcp' && proto !== 'udp') throw new Error(`${JSON.stringify(proto)} is not tcp or udp`);
  return proto;
}

export const pairElement = (from: string, to: string): string => `${ipElement(from)} . ${ipElement(to)}`;

export function ip6Element(ip: string): string {
  const n = parseIpv6(ip);
  if (n === null) throw new Error(`${JSON.stringify(ip)} is not an IPv6 address`);
  return formatIpv6(n);
}

export const pair6Element = (from: string, to: string): string => `${ip6Element(from)} . ${ip6Element(to)}`;

/** `"wgcp1" . fd00::1` from the server's interface and its IPv6 address with prefix. */
export function serverAddr6Element(ifname: string, address6: string): string {
  const c = parseCidr6(address6);
  if (!c) throw new Error(`server address ${JSON.stringify(address6)} is not an IPv6 CIDR`);
  return `${ifnameElement(ifname)} . ${formatIpv6(c.ip)}`;
}

export function forwardTarget6(ip6: string, port: number): string {
  return `${ip6Element(ip6)} . ${portElement(port)}`;
}

/** `"wgcp1" . 10.8.0.1` from the server's interface and its address with prefix. */
export function serverAddrElement(ifname: string, address: string): string {
  const c = parseCidr(address);
  if (!c) throw new Error(`server address ${JSON.stringify(address)} is not a CIDR`);
  return `${ifnameElement(ifname)} . ${formatIpv4(c.ip)}`;
}

export function forwardKey(proto: string, listenPort: number): string {
  return `${protoElement(proto)} . ${portElement(listenPort)}`;
}

export function forwardTarget(ip: string, port: number): string {
  return `${ipElement(ip)} . ${portElement(port)}`;
}

/** Adds every element of `more` into `into` (slices of different peers may overlap). */
export function mergeInto(into: PolicyElements, more: PolicyElements): PolicyElements {
  for (const k of ELEMENT_SETS) for (const e of more[k]) into[k].add(e);
  for (const [k, v] of more.forwards) into.forwards.set(k, v);
  for (const [k, v] of more.forwards6) into.forwards6.set(k, v);
  return into;
}

/** The union of slices, in a new set of elements. */
export const mergeAll = (slices: PolicyElements[]): PolicyElements => slices.reduce((into, more) => mergeInto(into, more), emptyElements());
