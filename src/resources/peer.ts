// The peer, described once: its record, and for each field its column in `peers`, its API
// name, its input rule and its OpenAPI schema. The store's row mapping, the API's parsing,
// the presenter, the OpenAPI document and the page's types all come from here (how to add a
// field: docs/development.md, "Resources"). The rules that need the server or the other peers
// are the operation's (ops/peer-rules.ts, ops/network-rules.ts).
import { fieldError } from '../error-registry';
import { EMAIL } from '../ops/value-rules';
import { scheduleOf, scheduleText, type Schedule } from '../schedule/rules';
import { listOf, listText, routesOf, routesText, splitList, type PeerClientOptions } from '../wg/client-options';
import { parseIpv4 } from '../net/ipv4';
import { formatIpv6, parseIpv6 } from '../net/ipv6';
import { isWireGuardKey } from '../wg/keys';
import { MAX_LIMIT_GB, isTenthsLimit, wholeGB } from '../data-limit';
import { withInitials, type Body, type Field, type Resource } from './describe';
import { readBool, readInt, readIntArray, readLimitMbps, readName, readSchedule, readString, readTimestamp } from './read';
import { readNetworkReach, readNetworks, readPeerClientOption } from './read-client-options';
import { CLIENT_ROUTES_SCHEMA, SCHEDULE_SCHEMA } from './schemas';

/** lanAccess and reachableFrom: every network of the router ("lan"), or these prefixes ([]: none). */
export type NetworkReach = 'lan' | string[];
export const reachText = (r: NetworkReach | undefined): string => (r === undefined ? '' : r === 'lan' ? 'lan' : r.join(', '));
export const reachOf = (text: string): NetworkReach => (text === 'lan' ? 'lan' : splitList(text));
const REACH_SCHEMA = { oneOf: [{ const: 'lan' }, { type: 'array', maxItems: 64, items: { type: 'string' } }] };

/** Why a peer is off; the order is the canonical one (the first is shown as `disabledReason`). */
export const DISABLE_REASONS = ['admin', 'suspended', 'data_limit', 'schedule'] as const;
export type DisableReason = typeof DISABLE_REASONS[number];

/** The client options (wg/client-options.ts) are optional: absent is null, the server's default. */
export interface PeerRecord extends PeerClientOptions {
  id: number;
  serverId: number;
  name: string;
  email: string;
  ip: string;
  /** The peer's IPv6 address (a /128 of its server's prefix), or null when the server has none. */
  ip6: string | null;
  publicKey: string;
  privateKey: string | null;
  presharedKey: string;
  allowAccess: number[];
  allowInternet: boolean;
  /** True exactly when disabledReasons is empty. */
  enabled: boolean;
  disabledReasons: DisableReason[];
  /** The monthly limit in GiB, tenths allowed (1.5): src/data-limit.ts. The API shows it whole as dataLimitGB, exact as dataLimitGiB. */
  dataLimitGB: number;
  /** Input only, never kept: a limit given in tenths (dataLimitGiB); the operation merges it into dataLimitGB. */
  dataLimitTenths?: number;
  usageBytes: number;
  expiresAt: string | null;
  /** Weekly windows of access in a time zone; outside them the reason `schedule` holds. Null or absent: always. */
  schedule?: Schedule | null;
  /** Shaping seen from the peer, in Mbit/s (null: none): download is what the router sends it. */
  downloadLimitMbps: number | null;
  uploadLimitMbps: number | null;
  /** Prefixes (IPv4 and IPv6, as networks) behind the peer, routed to it; absent: none. */
  networks?: string[];
  /** Which of the router's networks the peer and its networks may reach: "lan" (all), prefixes, [] none; absent: none. */
  lanAccess?: NetworkReach;
  /** Who on the router's side may open connections to the peer and its networks: "lan", prefixes, [] none; absent: none. */
  reachableFrom?: NetworkReach;
  createdAt: string;
  updatedAt: string;
}

/** A new row: the fields without an initial value below must be given, the rest may be left out. */
export type NewPeer = Partial<PeerRecord> & Pick<PeerRecord, 'serverId' | 'name' | 'ip' | 'ip6' | 'publicKey' | 'privateKey' | 'presharedKey' | 'enabled' | 'disabledReasons' | 'createdAt' | 'updatedAt'>;

/** A whole record of a new peer: what is left out takes its initial value. */
export const newPeerRecord = <P extends NewPeer & { id: number }>(p: P): PeerRecord & P => withInitials(PEER, p) as PeerRecord & P;

export { MAX_LIMIT_GB };

/** dataLimitGiB: a number of GiB with at most one decimal (docs/api.md, Peers). */
function readTenths(body: Body, field: string): number | undefined {
  const v = body[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !isTenthsLimit(v)) throw fieldError(field, `must be a number of GiB from 0 to ${MAX_LIMIT_GB} with at most one decimal, such as 1.5`);
  return Math.round(v * 10) / 10;
}

export function parseReasons(text: string): DisableReason[] {
  const listed = text.split(',');
  return DISABLE_REASONS.filter((r) => listed.includes(r));
}

const str = { type: 'string' };
const int = { type: 'integer', format: 'int64' };
const bool = { type: 'boolean' };
const ts = { type: 'string', format: 'date-time' };
const REASONS_SCHEMA = { enum: [...DISABLE_REASONS] };
const limitSchema = (what: string) => ({ type: ['number', 'null'], minimum: 0.1, maximum: 10000, description: `shaping of ${what}, Mbit/s; null: no limit` });
const nullable = <V>(f: Field<V>): Field<V> => ({ ...f, initial: () => null as V });
const clientOption = <K extends keyof PeerClientOptions>(field: K, column: string, schema: Record<string, unknown>, codec: { write?: (v: never) => unknown; read?: (v: never) => unknown } = {}): Field<PeerClientOptions[K]> =>
  nullable({ column: { name: column, ...codec } as never, input: (body: Body) => readPeerClientOption(body, field), schema });
const bit = { write: (v: boolean) => (v ? 1 : 0), read: (v: number) => v === 1 };

export const PEER: Resource<PeerRecord> = {
  name: 'Peer',
  table: 'peers',
  fields: {
    id: { column: 'id', schema: int },
    serverId: { json: 'serverID', column: 'server_id', schema: int },
    name: { column: 'name', input: (b, f) => readName(b, f, { max: 64 }), initial: () => '', schema: str },
    email: {
      column: 'email', initial: () => '', schema: str,
      input: (b, f) => {
        const v = readString(b, f, { max: 254 });
        if (v && !EMAIL.test(v)) throw fieldError(f, 'must be an e-mail address');
        return v;
      },
    },
    ip: {
      column: 'ip', schema: str,
      input: (b, f) => {
        const v = readString(b, f, { max: 18 })?.replace(/\/32$/, '');
        if (v !== undefined && parseIpv4(v) === null) throw fieldError(f, 'must be an IPv4 address such as 10.8.0.2');
        return v;
      },
    },
    ip6: {
      column: 'ip6', schema: { type: ['string', 'null'], description: 'the peer IPv6 address, a /128 of the server prefix; null when the server has none' },
      input: (b, f) => {
        const v = readString(b, f, { max: 49 });
        if (v === undefined) return undefined;
        const n = parseIpv6(v.replace(/\/128$/, ''));
        if (n === null) throw fieldError(f, 'must be an IPv6 address such as fd12:3456:789a:1::2');
        return formatIpv6(n);
      },
    },
    publicKey: {
      // A new public key drops the private key: the operation merges it.
      column: 'public_key', ownMerge: true, schema: str,
      input: (b, f) => {
        const v = readString(b, f, { max: 44 });
        if (v !== undefined && !isWireGuardKey(v)) throw fieldError(f, 'must be a WireGuard public key (base64 of 32 bytes)');
        return v;
      },
    },
    privateKey: { column: 'private_key', seenBy: 'never' },
    presharedKey: { column: 'preshared_key', seenBy: 'never' },
    // Kept in peer_access, read by the table beside the row.
    allowAccess: { input: (b, f) => readIntArray(b, f, 1, Number.MAX_SAFE_INTEGER, 10_000), initial: () => [], schema: { type: 'array', items: int } },
    allowInternet: { column: { name: 'allow_internet', ...bit }, input: readBool, initial: () => false, schema: bool },
    // `enabled` is stored beside the reasons (indexes and triggers read it) and always follows them; as input it is the admin's own reason.
    enabled: { column: { name: 'enabled', ...bit }, input: readBool, ownMerge: true, schema: bool },
    disabledReasons: {
      column: { name: 'disabled_reasons', write: (v: DisableReason[]) => DISABLE_REASONS.filter((r) => v.includes(r)).join(','), read: parseReasons },
      schema: { type: 'array', items: REASONS_SCHEMA, description: 'every reason the peer is off; each is lifted only by its owner' },
    },
    // Kept exact (a REAL in the INTEGER column when it has tenths: SQLite keeps 1.5 as it is); the contract's integer shows it rounded up.
    dataLimitGB: {
      column: 'data_limit_gb', input: (b, f) => readInt(b, f, 0, MAX_LIMIT_GB), ownMerge: true, initial: () => 0, show: wholeGB,
      schema: { ...int, minimum: 0, description: 'the monthly limit in GB (2^30 bytes), 0 for none; a limit set in tenths (dataLimitGiB) reads rounded up' },
    },
    dataLimitTenths: { json: 'dataLimitGiB', input: readTenths, ownMerge: true, seenBy: 'never' },
    usageBytes: {
      json: 'currentDataUsageBytes', initial: () => 0, schema: int,
      column: { name: 'usage_bytes', insertOnly: true, select: 'COALESCE((SELECT usage_bytes FROM peer_usage WHERE peer_id = peers.id), 0)' },
    },
    expiresAt: nullable({
      column: 'expires_at', schema: { type: ['string', 'null'], format: 'date-time' },
      input: (b, f, { now }) => {
        const v = readTimestamp(b, f);
        // A peer is deleted, keys and all, once its expiry passes: a date already past (a slip
        // in a date picker) would destroy it at the next minute, so it is refused.
        if (typeof v === 'string' && Date.parse(v) <= now.getTime()) throw fieldError(f, `must be in the future (it is ${now.toISOString()} now); null or "" for never`);
        return v;
      },
    }),
    schedule: nullable<Schedule | null | undefined>({ column: { name: 'schedule', write: (v?: Schedule | null) => scheduleText(v ?? null), read: scheduleOf }, input: (b, f) => readSchedule(b, f), schema: SCHEDULE_SCHEMA }),
    downloadLimitMbps: nullable({ column: 'download_limit_mbps', input: readLimitMbps, schema: limitSchema('what the router sends the peer') }),
    uploadLimitMbps: nullable({ column: 'upload_limit_mbps', input: readLimitMbps, schema: limitSchema('what the peer sends the router') }),
    networks: {
      column: { name: 'networks', write: (v?: string[]) => (v ?? []).join(', '), read: splitList }, input: (b) => readNetworks(b), initial: () => [],
      schema: { type: 'array', maxItems: 64, items: str, description: 'prefixes (IPv4 and IPv6) behind the peer, routed to it: in its AllowedIPs on the server and routed through the interface; none may overlap a server subnet, another peer\'s networks or the router\'s own networks, nor be a default route' },
    },
    lanAccess: {
      column: { name: 'lan_access', write: reachText, read: reachOf }, input: (b) => readNetworkReach(b, 'lanAccess'), initial: () => [],
      schema: { ...REACH_SCHEMA, description: 'which of the router\'s own networks and addresses the peer and its networks may open connections to: "lan" (all), prefixes inside them, or [] (none); a new peer that leaves it out gets its server\'s lanAccess; allowInternet does not open them' },
    },
    reachableFrom: {
      column: { name: 'reachable_from', write: reachText, read: reachOf }, input: (b) => readNetworkReach(b, 'reachableFrom'), initial: () => [],
      schema: { ...REACH_SCHEMA, description: 'who outside the tunnels may open connections to the peer and its networks: "lan" (hosts of the router\'s networks), source prefixes, or [] (none, the default); replies and port forwards pass whatever it says' },
    },
    dns: clientOption('dns', 'client_dns', { type: ['array', 'null'], maxItems: 8, items: str, description: 'the DNS servers in this peer\'s .conf; []: none; null: the server\'s dns' }, { write: listText, read: listOf }),
    clientAllowedIPs: clientOption('clientAllowedIPs', 'client_allowed_ips', { ...CLIENT_ROUTES_SCHEMA, description: 'what this client routes into the tunnel: "full", "split" or prefixes; null: the server\'s default' }, { write: routesText, read: routesOf }),
    persistentKeepalive: clientOption('persistentKeepalive', 'client_keepalive', { type: ['integer', 'null'], minimum: 0, maximum: 65535, description: 'this client\'s keepalive, seconds; 0: off; null: the server\'s' }),
    mtu: clientOption('mtu', 'client_mtu', { type: ['integer', 'null'], minimum: 1280, maximum: 9000, description: 'this client\'s MTU; null: the server\'s' }),
    createdAt: { column: { name: 'created_at', insertOnly: true }, schema: ts },
    updatedAt: { column: 'updated_at', schema: ts },
  },
  derived: {
    disabledReason: {
      after: 'enabled', value: (p) => p.disabledReasons[0] ?? '',
      schema: { enum: ['', ...DISABLE_REASONS], description: 'the first of disabledReasons, or ""' },
    },
    hasPrivateKey: { after: 'mtu', value: (p) => p.privateKey !== null, schema: bool },
    dataLimitGiB: {
      after: 'dataLimitGB', value: (p) => p.dataLimitGB,
      schema: { type: 'number', minimum: 0, maximum: MAX_LIMIT_GB, multipleOf: 0.1, readOnly: false, description: 'outside the contract: the same limit with one decimal (1.5); a body sets it or dataLimitGB (docs/api.md)' },
    },
  },
};
