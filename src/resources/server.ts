// The server, described once: its record (a row of `servers`), its API names, input rules
// and OpenAPI schema. The store's row mapping, the body's parsing, the presenter (with its
// kernel state, peers and webhooks handed beside it) and the page's types come from here.
// The rules that need the other servers are the operation's (ops/server-rules.ts).
import { fieldError } from '../error-registry';
import { SERVER_VALUE_RULES } from '../ops/value-rules';
import { parseIpv4 } from '../net/ipv4';
import { formatCidr6, formatIpv6, parseCidr6, parseIpv6 } from '../net/ipv6';
import { DEFAULT_KEEPALIVE, routesOf, routesText, type ClientRoutes } from '../wg/client-options';
import { INTERFACE_NAME, INTERFACE_NAME_RULE } from '../wg/interface-name';
import type { Resource } from './describe';
import { oneOf, readInt, readName, readString } from './read';
import { readServerClientRoutes, readServerKeepalive, readServerLanAccess } from './read-client-options';
import { reachOf, reachText, type NetworkReach } from './peer';
import { CLIENT_ROUTES_SCHEMA } from './schemas';

export type ServerMode = 'forward' | 'standalone';

export interface ServerRecord {
  id: number;
  name: string;
  endpoint: string;
  mode: ServerMode;
  interface: string;
  address: string;
  /** The IPv6 tunnel address with its prefix (RFC 5952), or null for an IPv4-only server. */
  address6: string | null;
  listenPort: number;
  dns: string;
  mtu: number | null;
  /** The client's AllowedIPs by default (null: by each peer's allowInternet). */
  clientAllowedIPs?: ClientRoutes | null;
  /** The client's keepalive by default, in seconds (0: off; absent: 25). */
  persistentKeepalive?: number;
  /** lanAccess given to a new peer that does not say (absent: none). */
  lanAccess?: NetworkReach;
  privateKey: string;
  publicKey: string;
  createdAt: string;
  updatedAt: string;
}

/** What the presenter is handed beside a server: its kernel state and its peers and webhooks as shown. */
export interface ServerSight {
  kernel: { kernelState: string; kernelFailure: unknown; lastKernelRepair: unknown };
  /** Absent: the server alone (events show no peers or webhooks). */
  peers?: unknown[];
  webhooks?: unknown[];
}

/** Refuses a given value that breaks its stored rule (ops/value-rules.ts): 400 naming the field. */
function keepRule<T>(field: string, value: T): T {
  const problem = value === undefined ? null : SERVER_VALUE_RULES[field](value);
  if (problem) throw fieldError(field, problem);
  return value;
}

const str = { type: 'string' };
const int = { type: 'integer', format: 'int64' };
const ts = { type: 'string', format: 'date-time' };

export const SERVER: Resource<ServerRecord, ServerSight> = {
  name: 'Server',
  table: 'servers',
  required: ['name', 'endpoint', 'mode'],
  fields: {
    id: { column: 'id', schema: int },
    name: { column: 'name', input: (b, f) => readName(b, f, { max: 64, min: 1 }), schema: str },
    endpoint: { column: 'endpoint', input: (b, f) => keepRule(f, readString(b, f, { max: 260 })), schema: { ...str, description: 'host:port' } },
    mode: { column: 'mode', input: (b, f) => oneOf(b, f, ['forward', 'standalone'] as const), schema: { enum: ['forward', 'standalone'] } },
    // Fixed at creation with its private key.
    publicKey: { column: { name: 'public_key', insertOnly: true }, schema: str },
    interface: { column: 'interface', input: (b, f) => readString(b, f, { max: 15, pattern: INTERFACE_NAME, describe: INTERFACE_NAME_RULE }), schema: str },
    address: { column: 'address', input: (b, f) => keepRule(f, readString(b, f, { max: 18 })), schema: { ...str, description: 'server tunnel address with prefix, e.g. 10.1.0.1/24' } },
    address6: {
      column: 'address6',
      schema: { type: ['string', 'null'], description: 'server IPv6 tunnel address with prefix (RFC 5952), e.g. fd12:3456:789a:1::1/64; null: IPv4 only; default: a unique local /64' },
      input: (b, f) => {
        const v = b[f] === null ? null : keepRule(f, readString(b, f, { max: 49 }));
        return typeof v === 'string' ? formatCidr6(parseCidr6(v)!) : v;
      },
    },
    listenPort: { column: 'listen_port', input: (b, f) => readInt(b, f, 1, 65535), schema: { type: 'integer', minimum: 1, maximum: 65535 } },
    dns: {
      column: 'dns',
      schema: { ...str, description: 'the clients\' DNS by default: "auto" (default; the tunnel address when a resolver listens there on port 53, else none), "" (none) or addresses separated by commas' },
      input: (b, f) => {
        const v = keepRule(f, readString(b, f, { max: 200 }));
        if (v === undefined || v === 'auto' || v === '') return v;
        return v.split(',').map((s) => s.trim()).map((p) => (parseIpv4(p) !== null ? p : formatIpv6(parseIpv6(p)!))).join(', ');
      },
    },
    mtu: { column: 'mtu', input: (b, f) => (b[f] === null ? null : readInt(b, f, 1280, 9000)), schema: { type: ['integer', 'null'], minimum: 1280, maximum: 9000, description: 'the clients\' MTU by default; null: none in the .conf' } },
    clientAllowedIPs: {
      column: { name: 'client_allowed_ips', write: (v?: ClientRoutes | null) => routesText(v), read: routesOf }, initial: () => null, input: (b, f) => readServerClientRoutes(b, f),
      schema: { ...CLIENT_ROUTES_SCHEMA, description: 'what clients route into the tunnel by default: "full", "split" (the server\'s networks) or prefixes; null (default): full for peers with allowInternet, split otherwise' },
    },
    persistentKeepalive: {
      column: { name: 'client_keepalive', write: (v?: number) => v ?? DEFAULT_KEEPALIVE }, initial: () => DEFAULT_KEEPALIVE, input: (b, f) => readServerKeepalive(b, f),
      schema: { type: 'integer', minimum: 0, maximum: 65535, description: 'the clients\' keepalive by default, seconds; 0: off; default 25' },
    },
    lanAccess: {
      column: { name: 'lan_access', write: reachText, read: reachOf }, input: (b) => readServerLanAccess(b), initial: () => [],
      schema: { oneOf: [{ const: 'lan' }, { type: 'array', maxItems: 64, items: str }], description: 'the lanAccess a new peer gets when it does not say: "lan", prefixes of the router\'s networks, or [] (none, the default)' },
    },
    privateKey: { column: { name: 'private_key', insertOnly: true }, seenBy: 'never' },
    createdAt: { column: { name: 'created_at', insertOnly: true }, schema: ts },
    updatedAt: { column: 'updated_at', schema: ts },
  },
  derived: {
    kernelState: { after: 'lanAccess', value: (_s, k) => k.kernel.kernelState, schema: { enum: ['up', 'failed', 'off'], description: 'up in the kernel, failed (see kernelFailure; retried), or off (no kernel backend)' } },
    kernelFailure: {
      after: 'lanAccess', value: (_s, k) => k.kernel.kernelFailure,
      schema: { type: ['object', 'null'], properties: { reason: str, since: ts, attempts: int, nextRetryAt: ts } },
    },
    lastKernelRepair: {
      after: 'lanAccess', value: (_s, k) => k.kernel.lastKernelRepair,
      schema: {
        type: ['object', 'null'], description: 'the reconciler\'s last repair of this server\'s part of the kernel, kept across restarts (docs/kernel.md, "Drift"); null: none yet',
        properties: { at: ts, repairs: int, kinds: { type: 'object', additionalProperties: int } },
      },
    },
    peers: { after: 'lanAccess', optional: true, value: (_s, k) => k.peers, schema: { type: 'array', items: { $ref: '#/components/schemas/Peer' } } },
    webhooks: { after: 'lanAccess', optional: true, value: (_s, k) => k.webhooks, schema: { type: 'array', items: { $ref: '#/components/schemas/Webhook' } } },
  },
};
