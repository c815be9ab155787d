// An import's plan: the one server and the peers an import will create, and what it cannot
// carry over, said in plain words. Every source (wg-quick, wg-easy v14 and v15) builds one;
// checkPlan holds the rules every plan keeps before the operation sees it. Pure.
import os from 'node:os';
import type { ServerMode } from '../store/servers';
import { badField } from '../ops/field-error';
import { HOSTNAME } from '../wg/hostname';
import { FORBIDDEN_IN_NAMES, nameProblem } from '../ops/name-rule';
import { PEER_VALUE_RULES, SERVER_VALUE_RULES, firstBadValue, quoted, visible } from '../ops/value-rules';
import { formatIpv4, isHostOf, networkOf, parseCidr, parseIpv4 } from '../net/ipv4';
import { formatCidr6, formatIpv6, hostAt6, isHostOf6, parseCidr6, parseIpv6 } from '../net/ipv6';
import { isWireGuardKey, publicKeyOf } from '../wg/keys';

export interface PlannedServer {
  name: string;
  endpoint: string;
  mode: ServerMode;
  /** null: wgcp's own name, wgcp<id>. */
  interface: string | null;
  address: string;
  address6: string | null;
  listenPort: number;
  dns: string;
  mtu: number | null;
  privateKey: string;
  publicKey: string;
}

export interface PlannedPeer {
  name: string;
  ip: string;
  ip6: string | null;
  publicKey: string;
  /** Known only where the source kept it (wg-easy); never for wg-quick. */
  privateKey: string | null;
  presharedKey: string;
  enabled: boolean;
  expiresAt: string | null;
  allowInternet: boolean;
  createdAt: string | null;
}

export interface ImportPlan {
  /** What was read: "wg-quick", "wg-easy v14 (wg0.json)", "wg-easy v15 (database)". */
  source: string;
  server: PlannedServer;
  peers: PlannedPeer[];
  /** What the import cannot carry over, one sentence each. */
  notCarried: string[];
  /** Choices the import made where the source says nothing (the endpoint, internet access...). */
  notes: string[];
}

/** What the operator may set on top of the file. */
export interface ImportOptions {
  name?: string;
  endpoint?: string;
  mode?: ServerMode;
  interface?: string;
}

/** A client without a preshared key keeps working without one (src/wg/keys.ts). */
export { NO_PRESHARED_KEY } from '../wg/keys';

/** The refusal of the file's contents: 400 naming `file`. */
export const badFile = (message: string): Error => badField('file', message);

/** A server address as wgcp takes it (a host of a /8 to /30), or null. */
export function serverAddress4(text: string): string | null {
  const c = parseCidr(text.trim());
  if (!c || c.prefix < 8 || c.prefix > 30 || !isHostOf(c, c.ip)) return null;
  return `${formatIpv4(c.ip)}/${c.prefix}`;
}

/** A server IPv6 address as wgcp takes it (a host of a /16 to /124, RFC 5952), or null. */
export function serverAddress6(text: string): string | null {
  const c = parseCidr6(text.trim());
  if (!c || c.prefix < 16 || c.prefix > 124 || !isHostOf6(c, c.ip)) return null;
  return formatCidr6(c);
}

/** The IPv4 address text of `host`, or null; `ip6` likewise for IPv6 (RFC 5952). */
export const ipv4Text = (host: string): string | null => (parseIpv4(host.trim()) === null ? null : formatIpv4(parseIpv4(host.trim())!));
export const ipv6Text = (host: string): string | null => (parseIpv6(host.trim()) === null ? null : formatIpv6(parseIpv6(host.trim())!));

/** A time as wgcp stores it (RFC 3339 with milliseconds, UTC), or null for text that is no date. */
export function isoTime(text: unknown): string | null {
  if (typeof text !== 'string' && !(text instanceof Date)) return null;
  // SQLite's CURRENT_TIMESTAMP ("2025-01-02 10:00:00") is UTC without saying so.
  const t = typeof text === 'string' && /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/.test(text) ? `${text.replace(' ', 'T')}Z` : text;
  const d = new Date(t as string);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

/** The endpoint the options give, else this router's host name with the port (said in the plan). */
export function endpointFor(options: ImportOptions, port: number, notes: string[], why: string): string {
  if (options.endpoint !== undefined) return options.endpoint;
  const host = os.hostname();
  const endpoint = `${HOSTNAME.test(host) ? host : '127.0.0.1'}:${port}`;
  notes.push(`${why}: the endpoint new peers' configs name is set to ${endpoint}; give --endpoint (or PUT /api/servers/{id}) with the router's public address`);
  return endpoint;
}

/** The server's private key from the file, checked, with its public key. */
export function serverKeys(privateKey: string | undefined, where: string): { privateKey: string; publicKey: string } {
  if (privateKey === undefined || !isWireGuardKey(privateKey.trim())) throw badFile(`${where}: the server's private key is missing or not a WireGuard key`);
  return { privateKey: privateKey.trim(), publicKey: publicKeyOf(privateKey.trim()) };
}

/**
 * Refuses a plan that breaks a rule on its own: a value that breaks its field's rule (the
 * rules the API keeps, ops/value-rules.ts: a host that is no host, which would put lines
 * into every client's .conf), peer keys that are not keys or repeat, addresses outside the
 * server's subnets or taken twice, a client with the server's key.
 */
export function checkPlan(plan: ImportPlan): void {
  const { server } = plan;
  const badServer = firstBadValue(SERVER_VALUE_RULES, { ...server, interface: server.interface ?? undefined });
  if (badServer) throw badFile(`the server's ${badServer.field} ${quoted(Reflect.get(server, badServer.field))} ${badServer.message}`);
  const subnet = parseCidr(server.address)!;
  const prefix6 = server.address6 ? parseCidr6(server.address6) : null;
  const keys = new Set<string>([server.publicKey]);
  const ips = new Set<string>([formatIpv4(subnet.ip)]);
  const ip6s = new Set<string>(prefix6 ? [formatIpv6(prefix6.ip)] : []);
  for (const p of plan.peers) {
    const who = `peer "${p.name}"`;
    if (!isWireGuardKey(p.publicKey)) throw badFile(`${who}: the public key is not a WireGuard key`);
    if (!isWireGuardKey(p.presharedKey)) throw badFile(`${who}: the preshared key is not a WireGuard key`);
    const bad = firstBadValue(PEER_VALUE_RULES, { ...p });
    if (bad) throw badFile(`peer ${quoted(p.name)}: its ${bad.field} ${quoted(Reflect.get(p, bad.field))} ${bad.message}`);
    if (keys.has(p.publicKey)) throw badFile(`${who}: the public key ${p.publicKey} is used twice (or is the server's)`);
    keys.add(p.publicKey);
    if (!isHostOf(subnet, parseIpv4(p.ip)!)) throw badFile(`${who}: ${p.ip} is not a host of the server subnet ${server.address}`);
    if (ips.has(p.ip)) throw badFile(`${who}: ${p.ip} is taken twice (or is the server's own)`);
    ips.add(p.ip);
    if (p.ip6 !== null) {
      if (!prefix6 || !isHostOf6(prefix6, parseIpv6(p.ip6)!)) throw badFile(`${who}: ${p.ip6} is not a host of the server prefix ${server.address6 ?? '(none)'}`);
      if (ip6s.has(p.ip6)) throw badFile(`${who}: ${p.ip6} is taken twice (or is the server's own)`);
      ip6s.add(p.ip6);
    }
  }
}

/** Applies the operator's options over what the file says. */
export function withOptions(server: PlannedServer, options: ImportOptions): PlannedServer {
  return {
    ...server,
    name: options.name ?? server.name,
    mode: options.mode ?? server.mode,
    interface: options.interface ?? server.interface,
  };
}

/**
 * Gives an IPv6 address to the peers of a dual-stack server that have none (wgcp keeps one
 * for every peer of such a server): the IPv4 host number in the prefix, else the lowest free.
 */
export function fillIpv6(plan: ImportPlan): void {
  const prefix = plan.server.address6 ? parseCidr6(plan.server.address6) : null;
  if (!prefix) return;
  const net4 = networkOf(parseCidr(plan.server.address)!);
  const used = new Set<bigint>([prefix.ip, ...plan.peers.filter((p) => p.ip6 !== null).map((p) => parseIpv6(p.ip6!)!)]);
  for (const p of plan.peers) {
    if (p.ip6 !== null) continue;
    let n = hostAt6(prefix, BigInt((parseIpv4(p.ip)! - net4) >>> 0));
    if (!isHostOf6(prefix, n) || used.has(n)) {
      for (n = hostAt6(prefix, 1n); isHostOf6(prefix, n) && used.has(n); n++);
      if (!isHostOf6(prefix, n)) throw badFile(`no free IPv6 address is left in ${plan.server.address6}`);
    }
    used.add(n);
    p.ip6 = formatIpv6(n);
    plan.notes.push(`peer "${p.name}" had no IPv6 address: it gets ${p.ip6} on the server side (its own config is unchanged)`);
  }
}

/** The last steps every source takes: IPv6 addresses where missing, the mode's note, the checks. */
export function finishPlan(plan: ImportPlan): ImportPlan {
  keepNameRule(plan);
  // The plan is printed by the CLI and shown by the page: what the file said is quoted, never acted on.
  plan.notes = plan.notes.map(visible);
  plan.notCarried = plan.notCarried.map(visible);
  fillIpv6(plan);
  if (plan.server.mode === 'forward' && plan.peers.length > 1) {
    plan.notes.push('forward mode: wgcp isolates peers from one another (allowAccess opens a way); --mode standalone leaves the packet filter to the router');
  }
  checkPlan(plan);
  return plan;
}

/**
 * Names from a file keep wgcp's name rule (ops/name-rule.ts) too: a name with control, format,
 * separator or invisible characters comes in without them, a blank one as "peer <address>"; said in the plan.
 */
function keepNameRule(plan: ImportPlan): void {
  const fix = (name: string, fallback: string, who: string): string => {
    if (nameProblem(name) === null) return name;
    // Other spaces (U+00A0, U+3000) become the ordinary one, so words stay apart.
    const cleaned = name.replace(/(?! )\p{Zs}/gu, ' ').replace(new RegExp(FORBIDDEN_IN_NAMES.source, 'gu'), '').trim();
    const kept = cleaned && nameProblem(cleaned) === null ? cleaned : fallback;
    plan.notes.push(`${who} ${nameProblem(name)}: it comes in as "${kept}"`);
    return kept;
  };
  plan.server.name = fix(plan.server.name, 'imported', "the server's name");
  for (const p of plan.peers) p.name = fix(p.name, `peer ${p.ip}`, `the name of peer ${p.ip}`);
}

/**
 * wg-easy disables a client once it expires; wgcp deletes a peer at its expiresAt. A client
 * not yet expired keeps its date; one already expired comes in disabled, without a date.
 */
export function expiryOf(name: string, expires: unknown, enabled: boolean, now: Date, notes: string[]): { expiresAt: string | null; enabled: boolean } {
  const at = isoTime(expires);
  if (at === null) return { expiresAt: null, enabled };
  if (Date.parse(at) > now.getTime()) return { expiresAt: at, enabled };
  notes.push(`client "${name}" expired at ${at}: it comes in disabled and without an expiry date (wgcp deletes a peer when it expires)`);
  return { expiresAt: null, enabled: false };
}

/** A client's own private key, kept only when it is the key of its public key. */
export function clientPrivateKey(name: string, privateKey: unknown, publicKey: string, notCarried: string[]): string | null {
  if (typeof privateKey !== 'string' || privateKey === '') return null;
  if (isWireGuardKey(privateKey) && isWireGuardKey(publicKey) && publicKeyOf(privateKey) === publicKey) return privateKey;
  notCarried.push(`client "${name}": its stored private key does not belong to its public key; it is not kept (the client keeps its own config)`);
  return null;
}
