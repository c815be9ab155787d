// The rules every stored value of a server and a peer keeps, wherever it enters: the API,
// an import of each format, a restored backup. These values reach each client's .conf
// (which wg-quick on the client reads line by line and whose PostUp it runs), `ip`, `wg`,
// `nft` and `tc` arguments and batches, and log lines: a value that is not what its field
// says (a host name holding a newline and a `PostUp = ...` line) would become lines there.
// One table, one rule a field; the API's readers, import's plan check and restore's check of
// a backup all ask it. Pure.
import { HOSTNAME } from '../wg/hostname';
import { INTERFACE_NAME_RULE, isInterfaceName } from '../wg/interface-name';
import { isHostOf, parseCidr, parseIpv4 } from '../net/ipv4';
import { isHostOf6, parseCidr6, parseIpv6 } from '../net/ipv6';
import { isWireGuardKey } from '../wg/keys';
import { nameProblem } from './name-rule';

/** `host:port` (a DNS name, an IPv4 address or a bracketed IPv6 one) with its port, or null. */
export function endpointPort(endpoint: string): number | null {
  const m = /^(\[[0-9A-Fa-f:.]+\]|[^:\[\]]+):(\d{1,5})$/.exec(endpoint);
  if (!m) return null;
  const host = m[1];
  const port = Number(m[2]);
  if (port < 1 || port > 65535) return null;
  if (host.startsWith('[') ? parseIpv6(host.slice(1, -1)) === null : parseIpv4(host) === null && !HOSTNAME.test(host)) return null;
  return port;
}

export const isIpAddress = (text: string): boolean => parseIpv4(text) !== null || parseIpv6(text) !== null;

/** Why a value is refused ("must ..."), or null when it keeps its field's rule. */
type Rule = (value: unknown) => string | null;

const isText = (v: unknown): v is string => typeof v === 'string';
const isPort = (v: unknown) => Number.isInteger(v) && (v as number) >= 1 && (v as number) <= 65535;

const name = (min: number): Rule => (v) => {
  if (!isText(v) || v.length < min || v.length > 64) return `must be text of ${min} to 64 characters`;
  return nameProblem(v);
};
const key: Rule = (v) => (isText(v) && isWireGuardKey(v) ? null : 'must be a WireGuard key (base64 of 32 bytes)');

export const ENDPOINT_RULE = 'must be host:port, such as vpn.example.com:51820, 203.0.113.7:51820 or [2001:db8::1]:51820';
export const DNS_RULE = 'must be "auto" (the router\'s resolver when one listens on the tunnel address), "" (none) or IP addresses separated by commas';
export const PEER_DNS_RULE = 'must be a list of up to 8 IP addresses ([] for none), or null for the server\'s';
export const ROUTES_RULE = 'must be "full", "split" or a list of up to 64 prefixes such as 10.8.0.0/24 or fd00::/64';
export const NETWORKS_RULE = 'must be a list of up to 64 prefixes such as 192.168.50.0/24 or fd00:50::/64 ([] for none)';
export const REACH_RULE = 'must be "lan" (every network of the router) or a list of up to 64 prefixes such as 192.168.1.0/24 or fd00:1::/64 ([] for none)';
export const KEEPALIVE_RULE = 'must be seconds from 0 (off) to 65535';

const isKeepalive = (v: unknown) => Number.isInteger(v) && (v as number) >= 0 && (v as number) <= 65535;
const isPrefix = (v: unknown) => isText(v) && (parseCidr(v) !== null || parseCidr6(v) !== null);
const routesRule: Rule = (v) => (v === 'full' || v === 'split' || (Array.isArray(v) && v.length >= 1 && v.length <= 64 && v.every(isPrefix)) ? null : ROUTES_RULE);
export const ADDRESS_RULE = 'must be the server tunnel address with its prefix, such as 10.8.0.1/24 (prefix 8 to 30)';
export const ADDRESS6_RULE = 'must be the server IPv6 tunnel address with its prefix, such as fd12:3456:789a:1::1/64 (prefix 16 to 124), or null';

export const SERVER_VALUE_RULES: Record<string, Rule> = {
  name: name(1),
  endpoint: (v) => (isText(v) && v.length <= 260 && endpointPort(v) !== null ? null : ENDPOINT_RULE),
  interface: (v) => (isText(v) && isInterfaceName(v) ? null : `must be ${INTERFACE_NAME_RULE}`),
  address: (v) => {
    const c = isText(v) ? parseCidr(v) : null;
    return c && c.prefix >= 8 && c.prefix <= 30 && isHostOf(c, c.ip) ? null : ADDRESS_RULE;
  },
  address6: (v) => {
    if (v === null) return null;
    const c = isText(v) ? parseCidr6(v) : null;
    return c && c.prefix >= 16 && c.prefix <= 124 && isHostOf6(c, c.ip) ? null : ADDRESS6_RULE;
  },
  listenPort: (v) => (isPort(v) ? null : 'must be a port, 1 to 65535'),
  dns: (v) => (isText(v) && v.length <= 200 && (v === 'auto' || v === '' || v.split(',').every((p) => isIpAddress(p.trim()))) ? null : DNS_RULE),
  clientAllowedIPs: (v) => (v === null ? null : routesRule(v)),
  persistentKeepalive: (v) => (isKeepalive(v) ? null : KEEPALIVE_RULE),
  mtu: (v) => (v === null || (Number.isInteger(v) && (v as number) >= 1280 && (v as number) <= 9000) ? null : 'must be 1280 to 9000, or null'),
  privateKey: key,
  publicKey: key,
  lanAccess: (v) => reachRule(v),
};

const reachRule: Rule = (v) => (v === 'lan' || (Array.isArray(v) && v.length <= 64 && v.every(isPrefix)) ? null : REACH_RULE);

export const PEER_VALUE_RULES: Record<string, Rule> = {
  name: name(0),
  email: (v) => (isText(v) && v.length <= 254 && (v === '' || EMAIL.test(v)) ? null : 'must be an e-mail address or empty'),
  ip: (v) => (isText(v) && parseIpv4(v) !== null ? null : 'must be an IPv4 address such as 10.8.0.2'),
  ip6: (v) => (v === null || (isText(v) && parseIpv6(v) !== null) ? null : 'must be an IPv6 address such as fd12:3456:789a:1::2, or null'),
  publicKey: key,
  privateKey: (v) => (v === null ? null : key(v)),
  presharedKey: key,
  dns: (v) => (v === null || (Array.isArray(v) && v.length <= 8 && v.every((a) => isText(a) && isIpAddress(a))) ? null : PEER_DNS_RULE),
  clientAllowedIPs: (v) => (v === null ? null : routesRule(v)),
  persistentKeepalive: (v) => (v === null || isKeepalive(v) ? null : `${KEEPALIVE_RULE}, or null`),
  mtu: (v) => (v === null || (Number.isInteger(v) && (v as number) >= 1280 && (v as number) <= 9000) ? null : 'must be 1280 to 9000, or null'),
  networks: (v) => (Array.isArray(v) && v.length <= 64 && v.every(isPrefix) ? null : NETWORKS_RULE),
  lanAccess: reachRule,
  reachableFrom: reachRule,
};

export const EMAIL = /^[^\s@"<>(),;:\\]{1,64}@[A-Za-z0-9]([A-Za-z0-9.-]{0,251}[A-Za-z0-9])?$/;

export interface ValueProblem { field: string; message: string }

/** The first field of `record` that breaks its rule in `rules`, or null. Fields the record lacks (undefined) are not judged. */
export function firstBadValue(rules: Record<string, Rule>, record: Record<string, unknown>): ValueProblem | null {
  for (const [field, rule] of Object.entries(rules)) {
    if (record[field] === undefined) continue;
    const message = rule(record[field]);
    if (message !== null) return { field, message };
  }
  return null;
}

/** `text` with what would act on a terminal or break a line (Cc, Cf, Zl, Zp) shown as \\uXXXX. */
export const visible = (text: string): string =>
  text.replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/**
 * A value as an error message, a plan or a log may quote it: JSON's escapes, and visible()
 * for what JSON leaves as it is (DEL, C1, format characters, U+2028/9), so a newline or a
 * terminal's escape code is shown, never acted on.
 */
export const quoted = (value: unknown): string => {
  const text = visible(JSON.stringify(value) ?? String(value));
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
};
