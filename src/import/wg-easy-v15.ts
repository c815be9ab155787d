// A wg-easy v15 database as an import plan: the interface (wg0) becomes the server with its
// keys, port, IPv4 and IPv6 subnets (the server holds the first host of each) and MTU; its
// user config gives the endpoint and DNS; each client a peer with its name, addresses, keys,
// enabled flag and expiry. One-time links, users and hooks stay behind, said so. Pure.
import { formatIpv4, networkOf, parseCidr } from '../net/ipv4';
import { formatIpv6, networkOf6, parseCidr6 } from '../net/ipv6';
import { isWireGuardKey } from '../wg/keys';
import {
  NO_PRESHARED_KEY, badFile, clientPrivateKey, endpointFor, expiryOf, finishPlan, ipv4Text, ipv6Text, isoTime, serverAddress4, serverAddress6,
  serverKeys, withOptions, type ImportOptions, type ImportPlan, type PlannedPeer,
} from './plan';
import type { Row, WgEasyRows } from './wg-easy-v15-read';
import { ENDPOINT_RULE, endpointPort, quoted } from '../ops/value-rules';

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

function jsonList(v: unknown): string[] | null {
  if (typeof v !== 'string') return null;
  try {
    const list = JSON.parse(v);
    return Array.isArray(list) ? list.filter((x): x is string => typeof x === 'string') : null;
  } catch {
    return null;
  }
}

/** wg-easy gives its interface the first host of each subnet. */
function firstHost4(cidr: string): string | null {
  const c = parseCidr(cidr);
  return c ? serverAddress4(`${formatIpv4(networkOf(c) + 1)}/${c.prefix}`) : null;
}
function firstHost6(cidr: string): string | null {
  const c = parseCidr6(cidr);
  return c ? serverAddress6(`${formatIpv6(networkOf6(c) + 1n)}/${c.prefix}`) : null;
}

const fullTunnel = (ips: string[] | null): boolean => (ips ?? []).some((ip) => ip.trim() === '0.0.0.0/0');

function planClient(c: Row, defaults: { allowedIps: string[] | null; dns: string[] | null; mtu: number | null }, now: Date, plan: ImportPlan): PlannedPeer | null {
  const name = (str(c.name)?.trim() || `client ${String(c.id)}`).slice(0, 64);
  const publicKey = str(c.public_key);
  if (publicKey === null || !isWireGuardKey(publicKey)) throw badFile(`client "${name}": public_key is missing or not a WireGuard key`);
  const ip = ipv4Text(str(c.ipv4_address) ?? '');
  if (ip === null) {
    plan.notCarried.push(`client "${name}": ipv4_address ${String(c.ipv4_address)} is not an IPv4 address; left out`);
    return null;
  }
  const ip6 = plan.server.address6 ? ipv6Text(str(c.ipv6_address) ?? '') : null;
  const routes = jsonList(c.allowed_ips) ?? defaults.allowedIps;
  // No list at all: wg-easy's default, everything through the tunnel.
  const allowInternet = routes === null || fullTunnel(routes);
  if (!allowInternet) plan.notes.push(`client "${name}" routed only ${(routes ?? []).join(', ')}: it gets allowInternet false (wgcp's config routes the server's subnets)`);
  const serverRoutes = jsonList(c.server_allowed_ips) ?? [];
  if (serverRoutes.length) plan.notCarried.push(`client "${name}": server_allowed_ips ${serverRoutes.join(', ')}: wgcp routes to a peer its own addresses only`);
  const firewall = jsonList(c.firewall_ips);
  if (firewall && firewall.length) plan.notCarried.push(`client "${name}": firewall_ips ${firewall.join(', ')}: wgcp's own filter applies (isolation, allowAccess, allowInternet)`);
  const dns = jsonList(c.dns);
  if (dns && dns.join(',') !== (defaults.dns ?? []).join(',')) plan.notCarried.push(`client "${name}": its own DNS ${dns.join(', ')} is not kept; wgcp's configs name the server's`);
  if (typeof c.mtu === 'number' && defaults.mtu !== null && c.mtu !== defaults.mtu) plan.notCarried.push(`client "${name}": its own MTU ${c.mtu} is not kept`);
  if (str(c.server_endpoint)) plan.notCarried.push(`client "${name}": server_endpoint ${String(c.server_endpoint)} (a site-to-site link) is not kept`);
  for (const hook of ['pre_up', 'post_up', 'pre_down', 'post_down']) {
    if (str(c[hook])) plan.notCarried.push(`client "${name}": its ${hook} hook is not kept`);
  }
  const expiry = expiryOf(name, c.expires_at, c.enabled === 1 || c.enabled === true, now, plan.notes);
  const psk = str(c.pre_shared_key);
  return {
    name, ip, ip6, publicKey, privateKey: clientPrivateKey(name, c.private_key, publicKey, plan.notCarried),
    presharedKey: psk && psk !== '' ? psk : NO_PRESHARED_KEY,
    enabled: expiry.enabled, expiresAt: expiry.expiresAt, allowInternet, createdAt: isoTime(c.created_at),
  };
}

export function planWgEasyDb(rows: WgEasyRows, options: ImportOptions, now: Date): ImportPlan {
  const iface = rows.interfaces.find((i) => i.name === 'wg0') ?? rows.interfaces[0];
  if (!iface) throw badFile('holds no wg-easy interface (interfaces_table is empty)');
  const plan: ImportPlan = { source: 'wg-easy v15 (database)', server: null as never, peers: [], notCarried: [], notes: [] };
  for (const other of rows.interfaces) if (other !== iface) plan.notCarried.push(`interface ${String(other.name)}: one import makes one server; import it again with its own file`);
  const ifname = String(iface.name);
  const keys = serverKeys(str(iface.private_key) ?? undefined, `interface ${ifname}`);
  if (str(iface.public_key) !== keys.publicKey) throw badFile(`interface ${ifname}: public_key is not the public key of private_key`);
  const address = firstHost4(str(iface.ipv4_cidr) ?? '');
  if (address === null) throw badFile(`interface ${ifname}: ipv4_cidr ${String(iface.ipv4_cidr)} is not a subnet wgcp takes (/8 to /30)`);
  const address6 = str(iface.ipv6_cidr) ? firstHost6(str(iface.ipv6_cidr)!) : null;
  if (str(iface.ipv6_cidr) && address6 === null) plan.notCarried.push(`interface ${ifname}: ipv6_cidr ${String(iface.ipv6_cidr)} is not a prefix wgcp takes (/16 to /124); the server is IPv4 only`);
  const port = Number(iface.port);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw badFile(`interface ${ifname}: port ${String(iface.port)} is not a port`);
  const config = rows.userConfigs.find((u) => u.id === ifname) ?? {};
  const host = str(config.host);
  const configPort = Number(config.port) || port;
  const fromHost = host ? `${host.includes(':') ? `[${host}]` : host}:${configPort}` : null;
  // The host becomes the Endpoint line of every client's .conf: it is a host name or an address, or the import stops.
  if (options.endpoint === undefined && fromHost !== null && endpointPort(fromHost) === null) {
    throw badFile(`user_configs_table: host ${quoted(host)} with port ${quoted(config.port)} is not a host name or IP address and a port (${ENDPOINT_RULE}); give --endpoint to set it`);
  }
  const endpoint = options.endpoint ?? fromHost ?? endpointFor(options, port, plan.notes, 'the wg-easy database holds no host');
  const dnsList = jsonList(config.default_dns);
  const dns = (dnsList ?? []).map((d) => ipv4Text(d) ?? ipv6Text(d)).filter((d): d is string => d !== null);
  const mtu = typeof iface.mtu === 'number' && iface.mtu >= 1280 && iface.mtu <= 9000 ? iface.mtu : null;
  if (typeof iface.mtu === 'number' && mtu === null) plan.notCarried.push(`MTU ${iface.mtu}: wgcp takes 1280 to 9000; the server keeps the default`);
  plan.server = withOptions({
    name: 'wg-easy', endpoint, mode: 'forward', interface: null, address, address6, listenPort: port,
    dns: dns.length ? dns.join(', ') : address.split('/')[0], mtu, ...keys,
  }, options);
  const hooks = rows.hooks.find((h) => h.id === ifname) ?? {};
  for (const hook of ['pre_up', 'post_up', 'pre_down', 'post_down']) {
    if (str(hooks[hook])) plan.notCarried.push(`the interface's ${hook} hook is reported, not run; wgcp keeps its own nftables table`);
  }
  if (rows.oneTimeLinks) plan.notCarried.push(`${rows.oneTimeLinks} one-time link(s) are dropped (wgcp has none)`);
  if (rows.users) plan.notCarried.push(`${rows.users} wg-easy user account(s) and their passwords are not carried (wgcp uses API keys and tokens)`);
  const defaults = { allowedIps: jsonList(config.default_allowed_ips), dns: dnsList, mtu: typeof config.default_mtu === 'number' ? config.default_mtu : null };
  for (const c of rows.clients.filter((c) => c.interface_id === undefined || c.interface_id === ifname)) {
    const peer = planClient(c, defaults, now, plan);
    if (peer) plan.peers.push(peer);
  }
  return finishPlan(plan);
}
