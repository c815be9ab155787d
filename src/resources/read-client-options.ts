// The client's own options as the API takes them, for a peer (null: the server's default)
// and for a server (its defaults). Each value keeps its stored rule (ops/value-rules.ts) and
// is written back in one form: addresses as RFC 5952 / dotted quads, prefixes as networks.
import { PEER_VALUE_RULES, SERVER_VALUE_RULES } from '../ops/value-rules';
import { formatIpv4, formatNetwork, parseCidr, parseIpv4 } from '../net/ipv4';
import { formatCidr6, formatIpv6, networkOf6, parseCidr6, parseIpv6 } from '../net/ipv6';
import type { ClientRoutes, PeerClientOptions } from '../wg/client-options';
import { fieldError } from '../error-registry';
import type { Body } from './describe';

const ruleOf = (rules: Record<string, (v: unknown) => string | null>, field: string, value: unknown): void => {
  const problem = rules[field](value);
  if (problem) throw fieldError(field, problem);
};

export const normalAddress = (a: string): string => (parseIpv4(a) !== null ? formatIpv4(parseIpv4(a)!) : formatIpv6(parseIpv6(a)!));

export function normalPrefix(p: string): string {
  const v4 = parseCidr(p);
  if (v4) return formatNetwork(v4);
  const v6 = parseCidr6(p)!;
  return formatCidr6({ ip: networkOf6(v6), prefix: v6.prefix });
}

const normalRoutes = (r: ClientRoutes | null): ClientRoutes | null => (r === null || typeof r === 'string' ? r : r.map(normalPrefix));

/** One of a peer's overrides (dns, clientAllowedIPs, persistentKeepalive, mtu): undefined when left out, null kept (back to the server's default). */
export function readPeerClientOption<K extends keyof PeerClientOptions>(body: Body, field: K): PeerClientOptions[K] | undefined {
  if (body[field] === undefined) return undefined;
  ruleOf(PEER_VALUE_RULES, field, body[field]);
  const v = body[field] as PeerClientOptions[K];
  if (v === null) return null as PeerClientOptions[K];
  if (field === 'dns') return (v as string[]).map(normalAddress) as PeerClientOptions[K];
  if (field === 'clientAllowedIPs') return normalRoutes(v as ClientRoutes) as PeerClientOptions[K];
  return v;
}

/** The networks behind a peer, as networks (10.9.0.1/24 is 10.9.0.0/24), or undefined when left out. */
export function readNetworks(body: Body): string[] | undefined {
  if (body.networks === undefined) return undefined;
  ruleOf(PEER_VALUE_RULES, 'networks', body.networks);
  return [...new Set((body.networks as string[]).map(normalPrefix))];
}

/** A server's default for its clients' AllowedIPs (null kept: by each peer's allowInternet), or undefined when left out. */
export function readServerClientRoutes(body: Body, field = 'clientAllowedIPs'): ClientRoutes | null | undefined {
  if (body[field] === undefined) return undefined;
  ruleOf(SERVER_VALUE_RULES, 'clientAllowedIPs', body[field]);
  return normalRoutes(body[field] as ClientRoutes | null);
}

/** A server's default keepalive for its clients; null is taken as left out (the default stays). */
export function readServerKeepalive(body: Body, field = 'persistentKeepalive'): number | undefined {
  if (body[field] === undefined || body[field] === null) return undefined;
  ruleOf(SERVER_VALUE_RULES, 'persistentKeepalive', body[field]);
  return body[field] as number;
}

/** lanAccess or reachableFrom: "lan", or prefixes as networks; undefined when left out. */
export function readNetworkReach(body: Body, field: 'lanAccess' | 'reachableFrom'): 'lan' | string[] | undefined {
  const v = body[field];
  if (v === undefined) return undefined;
  ruleOf(PEER_VALUE_RULES, field, v);
  return normalReach(v as 'lan' | string[]);
}

const normalReach = (v: 'lan' | string[]): 'lan' | string[] => (v === 'lan' ? 'lan' : [...new Set(v.map(normalPrefix))]);

/** A server's default lanAccess for new peers; undefined when left out. */
export function readServerLanAccess(body: Body): 'lan' | string[] | undefined {
  if (body.lanAccess === undefined) return undefined;
  ruleOf(SERVER_VALUE_RULES, 'lanAccess', body.lanAccess);
  return normalReach(body.lanAccess as 'lan' | string[]);
}
