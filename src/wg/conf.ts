// The peer's .conf (DESIGN.md section 2): loads with wg-quick, and with `wg setconf` once
// stripped of the wg-quick-only keys.
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

export function renderPeerConf(server: ServerRecord, peer: PeerRecord & { privateKey: string }): string {
  const lines = [
    '[Interface]',
    `PrivateKey = ${peer.privateKey}`,
    `Address = ${peer.ip}/32${peer.ip6 ? `, ${peer.ip6}/128` : ''}`,
    `DNS = ${server.dns}`,
  ];
  if (server.mtu !== null) lines.push(`MTU = ${server.mtu}`);
  lines.push(
    '',
    '[Peer]',
    `PublicKey = ${server.publicKey}`,
    `PresharedKey = ${peer.presharedKey}`,
    `AllowedIPs = ${peerAllowedIps(server, peer.allowInternet)}`,
    `Endpoint = ${server.endpoint}`,
    'PersistentKeepalive = 25',
  );
  return lines.join('\n') + '\n';
}

const WG_QUICK_ONLY = /^\s*(Address|DNS|MTU|Table|PreUp|PostUp|PreDown|PostDown|SaveConfig)\s*=/i;

/** Like `wg-quick strip`: drops the keys that `wg setconf` does not know. */
export function stripConf(text: string): string {
  return text.split('\n').filter((l) => !WG_QUICK_ONLY.test(l)).join('\n');
}
