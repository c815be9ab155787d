// wg-easy's wg0.json (v14 and earlier) as an import plan. The file holds the server's keys
// and address and each client's name, address, keys, enabled flag and dates; the port, host,
// DNS and MTU lived in wg-easy's environment (WG_PORT, WG_HOST, WG_DEFAULT_DNS, WG_MTU), so
// the plan takes wg-easy's defaults for them and says so. Pure.
import {
  NO_PRESHARED_KEY, badFile, clientPrivateKey, endpointFor, expiryOf, finishPlan, ipv4Text, isoTime, serverAddress4, serverKeys, withOptions,
  type ImportOptions, type ImportPlan, type PlannedPeer,
} from './plan';
import { isWireGuardKey } from '../wg/keys';

const DEFAULT_PORT = 51820;
const DEFAULT_DNS = '1.1.1.1';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

export function looksLikeWgEasyJson(text: string): boolean {
  return /^\s*\{/.test(text);
}

function planClient(id: string, c: Json, now: Date, plan: Pick<ImportPlan, 'notCarried' | 'notes'>): PlannedPeer | null {
  const name = typeof c.name === 'string' && c.name.trim() ? c.name.trim().slice(0, 64) : `client ${id}`;
  if (typeof c.publicKey !== 'string' || !isWireGuardKey(c.publicKey)) throw badFile(`client "${name}": publicKey is missing or not a WireGuard key`);
  const ip = typeof c.address === 'string' ? ipv4Text(c.address) : null;
  if (ip === null) {
    plan.notCarried.push(`client "${name}": address ${String(c.address)} is not an IPv4 address; left out`);
    return null;
  }
  if (c.oneTimeLink) plan.notCarried.push(`client "${name}": its one-time link is dropped (wgcp has none)`);
  if (Array.isArray(c.allowedIPs) || typeof c.allowedIPs === 'string') plan.notCarried.push(`client "${name}": its own allowedIPs are not kept; wgcp's config routes everything through the tunnel (allowInternet)`);
  const expiry = expiryOf(name, c.expiredAt, c.enabled !== false, now, plan.notes);
  return {
    name, ip, ip6: null, publicKey: c.publicKey,
    privateKey: clientPrivateKey(name, c.privateKey, c.publicKey, plan.notCarried),
    presharedKey: typeof c.preSharedKey === 'string' && c.preSharedKey !== '' ? c.preSharedKey : NO_PRESHARED_KEY,
    enabled: expiry.enabled, expiresAt: expiry.expiresAt, allowInternet: true, createdAt: isoTime(c.createdAt),
  };
}

export function planWgEasyJson(text: string, options: ImportOptions, now: Date): ImportPlan {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw badFile(`is not JSON: ${(err as Error).message}`);
  }
  if (!isObject(doc) || !isObject(doc.server) || !isObject(doc.clients)) throw badFile('is not a wg-easy wg0.json: it needs "server" and "clients" objects');
  const s = doc.server;
  const keys = serverKeys(typeof s.privateKey === 'string' ? s.privateKey : undefined, 'server');
  if (typeof s.publicKey === 'string' && s.publicKey !== keys.publicKey) throw badFile("server.publicKey is not the public key of server.privateKey: the file is damaged");
  // wg-easy v14 writes the server's interface as `Address = <address>/24`.
  const address = typeof s.address === 'string' ? serverAddress4(`${s.address}/24`) : null;
  if (address === null) throw badFile(`server.address ${String(s.address)} is not an IPv4 address`);
  const plan: ImportPlan = { source: 'wg-easy v14 (wg0.json)', server: null as never, peers: [], notCarried: [], notes: [] };
  const port = options.endpoint ? Number(/:(\d+)$/.exec(options.endpoint)![1]) : DEFAULT_PORT;
  if (!options.endpoint) plan.notes.push(`wg0.json does not hold WG_PORT: the server listens on ${DEFAULT_PORT}, wg-easy's default`);
  plan.notes.push(`wg0.json does not hold WG_DEFAULT_DNS or WG_MTU: new configs name DNS ${DEFAULT_DNS} (wg-easy's default) and the default MTU`);
  plan.notes.push("every client routes all its traffic through the tunnel, as wg-easy's default WG_ALLOWED_IPS did: allowInternet is on");
  plan.server = withOptions({
    name: 'wg-easy', endpoint: endpointFor(options, port, plan.notes, 'wg0.json does not hold WG_HOST'),
    mode: 'forward', interface: null, address, address6: null, listenPort: port, dns: DEFAULT_DNS, mtu: null, ...keys,
  }, options);
  for (const [id, c] of Object.entries(doc.clients)) {
    if (!isObject(c)) throw badFile(`client ${id} is not an object`);
    const peer = planClient(id, c, now, plan);
    if (peer) plan.peers.push(peer);
  }
  return finishPlan(plan);
}
