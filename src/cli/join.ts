// `wgcp join`: this router joins another wgcp router as a site (docs/site-to-site.md).
// With a registration token of the other router: a key pair is made here, the other router's
// /api/v1/join is asked with the public key and this router's LAN (its private key never
// leaves this router), and the answer becomes a site link. With a .conf the other router
// gave for a peer: the link is read from it. Either way the link is made by the running
// wgcpd, through its admin socket and its change runner (it brings the interface up).
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { generateKeyPair } from '../wg/keys';
import { listOf, oneOf, parseWgQuick } from '../import/wg-quick-parse';
import { parseCidr } from '../net/ipv4';
import { parseCidr6 } from '../net/ipv6';
import { UsageError, stringOption, type Args } from './args';
import { askDaemon } from './daemon-socket';

const USAGE = 'usage: wgcp join URL --token TOKEN --networks PREFIX[,PREFIX] [--name NAME] [--reachable-from lan|none|PREFIX[,PREFIX]] [--ca-file FILE] | wgcp join --conf FILE [--name NAME] [--reachable-from ...]';
const ANSWER_LIMIT = 64 * 1024;

export interface SiteLinkBody {
  name: string; privateKey: string; address: string; address6: string | null;
  peerPublicKey: string; presharedKey: string; endpoint: string; routes: string[];
  reachableFrom?: 'lan' | string[];
}

/**
 * --reachable-from: what the other side may open connections to here, as the API's
 * `reachableFrom` takes it: "lan", "none" ([]: replies only) or prefixes, comma-separated like
 * --networks. Read before the token is spent: a typo must not cost the other router a token.
 */
export function readReachableFrom(text: string | undefined): 'lan' | string[] | undefined {
  if (text === undefined) return undefined;
  const v = text.trim();
  if (v === 'lan') return 'lan';
  if (v === 'none') return [];
  const prefixes = v.split(',').map((p) => p.trim()).filter(Boolean);
  const bad = prefixes.find((p) => !parseCidr(p) && !parseCidr6(p));
  if (prefixes.length === 0 || bad !== undefined) {
    throw new UsageError(`--reachable-from takes lan, none, or prefixes like 192.168.2.10/32,fd02::/64${bad === undefined ? '' : ` (${bad} is not a prefix)`}`);
  }
  return prefixes;
}

/** POSTs JSON to the other router; its JSON answer and status. */
function postJson(url: URL, body: unknown, ca: string | undefined): Promise<{ status: number; json: any }> {
  const payload = JSON.stringify(body);
  const lib = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = lib.request(url, { method: 'POST', ca, timeout: 30_000, headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload) } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => { text += c; if (text.length > ANSWER_LIMIT) req.destroy(new Error('the answer is too large')); });
      res.on('end', () => {
        try { resolve({ status: res.statusCode ?? 0, json: JSON.parse(text) }); } catch { reject(new Error(`${url.host} answered ${res.statusCode} without JSON`)); }
      });
    });
    req.on('timeout', () => req.destroy(new Error(`${url.host} did not answer within 30 s`)));
    req.on('error', reject);
    req.end(payload);
  });
}

/** The link from the other router's join answer. */
export async function linkFromToken(base: string, token: string, networks: string[], name: string, ca: string | undefined): Promise<{ body: SiteLinkBody; peerID: number }> {
  let url: URL;
  try { url = new URL('api/v1/join', base.endsWith('/') ? base : `${base}/`); } catch { throw new UsageError(`${base} is not a URL`); }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new UsageError(`${base} is not an http:// or https:// URL`);
  const keys = generateKeyPair();
  const answer = await postJson(url, { token, publicKey: keys.publicKey, networks, name }, ca);
  if (answer.status !== 200) throw new Error(`${url.host} refused the join: ${answer.status} ${answer.json?.error ?? ''}`.trim());
  const a = answer.json;
  return {
    peerID: a.peerID,
    body: { name, privateKey: keys.privateKey, address: a.address, address6: a.address6 ?? null, peerPublicKey: a.serverPublicKey, presharedKey: a.presharedKey, endpoint: a.endpoint, routes: a.routes },
  };
}

/** The link from a peer's .conf: its key, addresses, the server's key, endpoint and AllowedIPs (no default route). */
export function linkFromConf(text: string, name: string): SiteLinkBody {
  const conf = parseWgQuick(text);
  if (conf.peers.length !== 1) throw new UsageError('the .conf must hold exactly one [Peer]: the other router\'s server');
  const [peer] = conf.peers;
  const need = (s: typeof peer, key: string, label: string) => {
    const v = oneOf(s, key, label);
    if (!v) throw new UsageError(`the .conf has no ${label}`);
    return v;
  };
  const addresses = listOf(conf.iface, 'address').map((a) => a.value.replace(/\/\d+$/, ''));
  const routes = listOf(peer, 'allowedips').map((a) => a.value);
  if (routes.some((r) => /^(0\.0\.0\.0|::)\/0$/.test(r))) {
    throw new UsageError('the .conf routes everything (AllowedIPs has a default route): give its peer on the other router clientAllowedIPs with that router\'s subnet and LANs, and take the .conf again');
  }
  return {
    name, privateKey: need(conf.iface, 'privatekey', 'PrivateKey'),
    address: addresses.find((a) => !a.includes(':')) ?? '', address6: addresses.find((a) => a.includes(':')) ?? null,
    peerPublicKey: need(peer, 'publickey', 'PublicKey'), presharedKey: need(peer, 'presharedkey', 'PresharedKey'),
    endpoint: need(peer, 'endpoint', 'Endpoint'), routes,
  };
}

export async function runJoinCommand(args: Args, dataDir: string, out: (s: string) => void): Promise<number> {
  const confFile = stringOption(args, 'conf');
  const name = stringOption(args, 'name') ?? 'site';
  const reachableFrom = readReachableFrom(stringOption(args, 'reachable-from'));
  let body: SiteLinkBody;
  let peerID: number | null = null;
  if (confFile !== undefined) {
    if (args.words.length > 1) throw new UsageError(USAGE);
    body = linkFromConf(fs.readFileSync(confFile, 'utf8'), name);
  } else {
    const base = args.words[1];
    const token = stringOption(args, 'token');
    const networks = stringOption(args, 'networks')?.split(',').map((n) => n.trim()).filter(Boolean);
    if (!base || args.words.length > 2 || !token || !networks?.length) throw new UsageError(USAGE);
    const caFile = stringOption(args, 'ca-file');
    // Asked first: a token spent for a router whose wgcpd cannot take the link helps no one.
    if (!fs.existsSync(`${dataDir}`) || (await askDaemon(dataDir, 'GET', '/api/site-links')) === null) throw new Error('wgcpd is not running on this data folder: start it first (it brings the link up)');
    ({ body, peerID } = await linkFromToken(base, token, networks, name, caFile === undefined ? undefined : fs.readFileSync(caFile, 'utf8')));
  }
  if (reachableFrom !== undefined) body.reachableFrom = reachableFrom;
  const answer = await askDaemon(dataDir, 'POST', '/api/site-links', body);
  if (answer === null) throw new Error('wgcpd is not running on this data folder: start it first (it brings the link up)');
  if (answer.status !== 201) {
    const held = peerID === null ? '' : `; the other router holds this router as its peer ${peerID}: delete that peer there before joining again`;
    throw new Error(`wgcpd refused the link: ${answer.json?.error ?? answer.status}${held}`);
  }
  const l = answer.json;
  const reach = l.reachableFrom === 'lan' ? 'this router\'s LAN' : l.reachableFrom.length ? l.reachableFrom.join(', ') : 'nothing (replies only)';
  out(`site link ${l.id} "${l.name}" up on ${l.interface}: ${l.address} to ${l.endpoint}, routing ${l.routes.join(', ')}; the other side may open connections to ${reach}\n`);
  return 0;
}
