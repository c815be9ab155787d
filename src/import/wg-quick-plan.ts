// A wg-quick config (/etc/wireguard/wg0.conf) as an import plan: the [Interface] becomes the
// server with its private key, addresses, port, DNS and MTU; each [Peer] a peer with its
// public and preshared keys and the addresses its AllowedIPs give it. Hooks are reported,
// never run. Pure.
import path from 'node:path';
import { isHostOf, parseCidr, parseIpv4 } from '../net/ipv4';
import { isHostOf6, parseCidr6, parseIpv6 } from '../net/ipv6';
import {
  NO_PRESHARED_KEY, badFile, endpointFor, finishPlan, ipv4Text, ipv6Text, serverAddress4, serverAddress6, serverKeys, withOptions,
  type ImportOptions, type ImportPlan, type PlannedPeer,
} from './plan';
import { listOf, oneOf, parseWgQuick, peerName, type ConfSection } from './wg-quick-parse';

const HOOKS = ['preup', 'postup', 'predown', 'postdown'];
const IFACE_KEYS = new Set(['privatekey', 'address', 'listenport', 'dns', 'mtu', 'table', 'fwmark', 'saveconfig', ...HOOKS]);
const PEER_KEYS = new Set(['publickey', 'presharedkey', 'allowedips', 'endpoint', 'persistentkeepalive']);
const LABEL: Record<string, string> = { preup: 'PreUp', postup: 'PostUp', predown: 'PreDown', postdown: 'PostDown', table: 'Table', fwmark: 'FwMark', saveconfig: 'SaveConfig', endpoint: 'Endpoint', persistentkeepalive: 'PersistentKeepalive' };

function serverAddresses(iface: ConfSection, notCarried: string[]): { address: string; address6: string | null } {
  let address: string | null = null;
  let address6: string | null = null;
  for (const a of listOf(iface, 'address')) {
    const six = a.value.includes(':');
    const v = six ? serverAddress6(a.value) : serverAddress4(a.value);
    if (v === null) throw badFile(`line ${a.line}: Address ${a.value} is not a server address wgcp takes (${six ? 'an IPv6 host with a /16 to /124 prefix' : 'an IPv4 host with a /8 to /30 prefix'})`);
    if (six ? address6 !== null : address !== null) notCarried.push(`Address ${a.value} (line ${a.line}): wgcp gives a server one IPv4 and one IPv6 address; only the first of each is kept`);
    else if (six) address6 = v;
    else address = v;
  }
  if (address === null) throw badFile('the [Interface] has no IPv4 Address: a wgcp server needs an IPv4 subnet (/8 to /30)');
  return { address, address6 };
}

function listenPortOf(iface: ConfSection, options: ImportOptions): number {
  const text = oneOf(iface, 'listenport', 'ListenPort');
  if (text !== undefined) {
    const port = Number(text);
    if (!/^\d{1,5}$/.test(text) || port < 1 || port > 65535) throw badFile(`ListenPort ${text} is not a port (1 to 65535)`);
    return port;
  }
  const fromEndpoint = options.endpoint ? Number(/:(\d+)$/.exec(options.endpoint)?.[1]) : NaN;
  if (Number.isInteger(fromEndpoint)) return fromEndpoint;
  throw badFile('the [Interface] has no ListenPort (the port would change and every client would lose the server): add it, or give --endpoint host:port');
}

function dnsOf(iface: ConfSection, serverIp: string, notCarried: string[]): string {
  const ips: string[] = [];
  for (const d of listOf(iface, 'dns')) {
    const ip = ipv4Text(d.value) ?? ipv6Text(d.value);
    if (ip) ips.push(ip);
    else notCarried.push(`DNS search domain ${d.value} (line ${d.line}): wgcp hands out DNS servers only`);
  }
  return ips.length ? ips.join(', ') : serverIp;
}

function mtuOf(iface: ConfSection, notCarried: string[]): number | null {
  const text = oneOf(iface, 'mtu', 'MTU');
  if (text === undefined) return null;
  const mtu = Number(text);
  if (/^\d+$/.test(text) && mtu >= 1280 && mtu <= 9000) return mtu;
  notCarried.push(`MTU ${text}: wgcp takes 1280 to 9000; the server keeps the default`);
  return null;
}

function planPeer(s: ConfSection, subnet: string, prefix6: string | null, allowInternet: boolean, notCarried: string[]): PlannedPeer | null {
  const publicKey = oneOf(s, 'publickey', 'PublicKey');
  if (publicKey === undefined) throw badFile(`line ${s.line}: a [Peer] without PublicKey`);
  const net = parseCidr(subnet)!;
  const net6 = prefix6 ? parseCidr6(prefix6) : null;
  let ip: string | null = null;
  let ip6: string | null = null;
  const routed: string[] = [];
  for (const a of listOf(s, 'allowedips')) {
    const [host, bits] = a.value.split('/');
    const v4 = parseIpv4(host);
    const v6 = v4 === null ? parseIpv6(host) : null;
    if (v4 !== null && (bits === undefined || bits === '32') && isHostOf(net, v4) && ip === null) ip = ipv4Text(host);
    else if (v6 !== null && net6 && (bits === undefined || bits === '128') && isHostOf6(net6, v6) && ip6 === null) ip6 = ipv6Text(host);
    else routed.push(a.value);
  }
  const name = peerName(s) ?? (ip ? `peer ${ip}` : `peer ${publicKey.slice(0, 8)}`);
  if (ip === null) {
    notCarried.push(`peer "${name}" (line ${s.line}, key ${publicKey}): no /32 address inside ${subnet} in its AllowedIPs, so wgcp cannot address it; left out`);
    return null;
  }
  if (routed.length) notCarried.push(`peer "${name}": AllowedIPs ${routed.join(', ')}: wgcp routes to a peer its own addresses only`);
  for (const l of s.lines) {
    if (!PEER_KEYS.has(l.key)) notCarried.push(`peer "${name}": ${l.key} (line ${l.line}) is not a wg-quick peer key; ignored`);
    else if (l.key === 'endpoint' || l.key === 'persistentkeepalive') notCarried.push(`peer "${name}": ${LABEL[l.key]} = ${l.value} on the server side (a site-to-site link) is not kept`);
  }
  return {
    name, ip, ip6, publicKey, privateKey: null, presharedKey: oneOf(s, 'presharedkey', 'PresharedKey') ?? NO_PRESHARED_KEY,
    enabled: true, expiresAt: null, allowInternet, createdAt: null,
  };
}

/** `fileName` names the server when no --name is given (wg0.conf -> wg0). */
export function planWgQuick(text: string, fileName: string | null, options: ImportOptions): ImportPlan {
  const conf = parseWgQuick(text);
  const { iface } = conf;
  const notCarried: string[] = [];
  const notes: string[] = [];
  const keys = serverKeys(oneOf(iface, 'privatekey', 'PrivateKey'), `[Interface] (line ${iface.line})`);
  const { address, address6 } = serverAddresses(iface, notCarried);
  const listenPort = listenPortOf(iface, options);
  const hooks = iface.lines.filter((l) => HOOKS.includes(l.key));
  for (const l of iface.lines) {
    if (HOOKS.includes(l.key)) notCarried.push(`${LABEL[l.key]} = ${l.value} (line ${l.line}): reported, not run; wgcp keeps its own nftables table`);
    else if (['table', 'fwmark', 'saveconfig'].includes(l.key)) notCarried.push(`${LABEL[l.key]} = ${l.value} (line ${l.line}): not a wgcp setting; ignored`);
    else if (!IFACE_KEYS.has(l.key)) notCarried.push(`${l.key} (line ${l.line}) is not a wg-quick key; ignored`);
  }
  // The hooks of a wg-quick server usually masquerade the tunnel to the internet: keep that.
  const allowInternet = hooks.some((l) => l.key === 'postup' && /masquerade|snat/i.test(l.value));
  notes.push(allowInternet
    ? 'PostUp masqueraded the tunnel: every peer gets allowInternet, and wgcp masquerades it in its own table'
    : 'no PostUp masqueraded the tunnel: peers reach the server and its subnet only (allowInternet false)');
  const server = withOptions({
    name: fileName ? path.basename(fileName).replace(/\.conf$/i, '').slice(0, 64) || 'wg-quick' : 'wg-quick',
    endpoint: endpointFor(options, listenPort, notes, 'a wg-quick config does not say how clients reach the server'),
    mode: 'forward', interface: null, address, address6, listenPort,
    dns: dnsOf(iface, address.split('/')[0], notCarried), mtu: mtuOf(iface, notCarried), ...keys,
  }, options);
  const peers = conf.peers.map((s) => planPeer(s, address, address6, allowInternet, notCarried)).filter((p): p is PlannedPeer => p !== null);
  notes.push('a server config holds no peer private keys: peers keep the configs they have (wgcp cannot show their .conf or QR code)');
  return finishPlan({ source: 'wg-quick', server, peers, notCarried, notes });
}
