// The peer's .conf (DESIGN.md section 2): loads with wg-quick, and with `wg setconf` once
// stripped of the wg-quick-only keys.
import createError from 'http-errors';
import type { PeerRecord } from '../store/peers';
import type { ServerRecord } from '../store/servers';
import { formatNetwork, parseCidr } from './ipv4';
import { formatNetwork6, parseCidr6 } from './ipv6';

export const FULL_TUNNEL = '0.0.0.0/0, ::/0';

/** What the peer routes into the tunnel: everything, or only the server's subnet (and its IPv6 prefix when given). */
export function peerAllowedIps(server: Pick<ServerRecord, 'address'> & { address6?: string | null }, allowInternet: boolean): string {
  if (allowInternet) return FULL_TUNNEL;
  const cidr = parseCidr(server.address);
  if (!cidr) throw new Error(`server address ${server.address} is not a CIDR`);
  const prefix6 = server.address6 ? parseCidr6(server.address6) : null;
  return prefix6 ? `${formatNetwork(cidr)}, ${formatNetwork6(prefix6)}` : formatNetwork(cidr);
}

// wg-quick reads the .conf line by line and runs its PostUp: a value holding a line break
// (or any control or line-separator character) would add lines to every client's config.
// Every value is checked where it enters (ops/value-rules.ts); this is the last guard, for a
// row that came in some other way (a database edited by hand): refuse, never print it.
const NOT_IN_A_CONF_VALUE = /[\p{Cc}\p{Zl}\p{Zp}]/u;

function confLine(key: string, value: string | number, owner: string): string {
  const text = String(value);
  const bad = NOT_IN_A_CONF_VALUE.exec(text);
  if (bad) {
    const code = `U+${bad[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
    throw createError(500, `the config is not rendered: the ${key} of ${owner} holds a control character (${code}); correct it through the API`);
  }
  return `${key} = ${text}`;
}

export function renderPeerConf(server: ServerRecord, peer: PeerRecord & { privateKey: string }): string {
  const ofPeer = `peer ${peer.id}`;
  const ofServer = `server ${server.id}`;
  const lines = [
    '[Interface]',
    confLine('PrivateKey', peer.privateKey, ofPeer),
    confLine('Address', `${peer.ip}/32${peer.ip6 ? `, ${peer.ip6}/128` : ''}`, ofPeer),
    confLine('DNS', server.dns, ofServer),
  ];
  if (server.mtu !== null) lines.push(confLine('MTU', server.mtu, ofServer));
  lines.push(
    '',
    '[Peer]',
    confLine('PublicKey', server.publicKey, ofServer),
    confLine('PresharedKey', peer.presharedKey, ofPeer),
    confLine('AllowedIPs', peerAllowedIps(server, peer.allowInternet), ofServer),
    confLine('Endpoint', server.endpoint, ofServer),
    'PersistentKeepalive = 25',
  );
  return lines.join('\n') + '\n';
}

const WG_QUICK_ONLY = /^\s*(Address|DNS|MTU|Table|PreUp|PostUp|PreDown|PostDown|SaveConfig)\s*=/i;

/** Like `wg-quick strip`: drops the keys that `wg setconf` does not know. */
export function stripConf(text: string): string {
  return text.split('\n').filter((l) => !WG_QUICK_ONLY.test(l)).join('\n');
}
