// The peer's .conf (DESIGN.md section 2): loads with wg-quick, and with `wg setconf` once
// stripped of the wg-quick-only keys.
import createError from 'http-errors';
import type { PeerRecord } from '../store/peers';
import type { ServerRecord } from '../store/servers';
import { FULL_TUNNEL, clientDns, clientKeepalive, clientMtu, clientRoutesText, serverNetworks } from './client-options';

export { FULL_TUNNEL };

/** What the peer routes into the tunnel by the server's defaults and its allowInternet: everything, or the server's networks. */
export function peerAllowedIps(server: Pick<ServerRecord, 'address'> & { address6?: string | null }, allowInternet: boolean): string {
  return allowInternet ? FULL_TUNNEL : serverNetworks(server).join(', ');
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

/** `resolverListens`: whether a resolver answers on the server's tunnel address (for DNS `auto`). */
export function renderPeerConf(server: ServerRecord, peer: PeerRecord & { privateKey: string }, resolverListens: (ip: string) => boolean): string {
  const ofPeer = `peer ${peer.id}`;
  const ofServer = `server ${server.id}`;
  // A value the peer overrides is the peer's to blame when it is bad; else the server's.
  const owner = (own: unknown) => (own !== undefined && own !== null ? ofPeer : ofServer);
  const lines = [
    '[Interface]',
    confLine('PrivateKey', peer.privateKey, ofPeer),
    confLine('Address', `${peer.ip}/32${peer.ip6 ? `, ${peer.ip6}/128` : ''}`, ofPeer),
  ];
  const dns = clientDns(server, peer, resolverListens);
  if (dns.length > 0) lines.push(confLine('DNS', dns.join(', '), owner(peer.dns)));
  const mtu = clientMtu(server, peer);
  if (mtu !== null) lines.push(confLine('MTU', mtu, owner(peer.mtu)));
  lines.push(
    '',
    '[Peer]',
    confLine('PublicKey', server.publicKey, ofServer),
    confLine('PresharedKey', peer.presharedKey, ofPeer),
    confLine('AllowedIPs', clientRoutesText(server, peer), owner(peer.clientAllowedIPs)),
    confLine('Endpoint', server.endpoint, ofServer),
  );
  // 0 is off: wg-quick and wg take "PersistentKeepalive = 0" too, but leaving it out says so plainly.
  const keepalive = clientKeepalive(server, peer);
  if (keepalive > 0) lines.push(confLine('PersistentKeepalive', keepalive, owner(peer.persistentKeepalive)));
  return lines.join('\n') + '\n';
}

const WG_QUICK_ONLY = /^\s*(Address|DNS|MTU|Table|PreUp|PostUp|PreDown|PostDown|SaveConfig)\s*=/i;

/** Like `wg-quick strip`: drops the keys that `wg setconf` does not know. */
export function stripConf(text: string): string {
  return text.split('\n').filter((l) => !WG_QUICK_ONLY.test(l)).join('\n');
}
