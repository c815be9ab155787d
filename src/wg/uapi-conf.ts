// Pure rendering of what `wg` is fed for a server: the whole config for `wg syncconf`
// (a server brought up whole: start-up, a retry) and the argument list of one peer for `wg set`.
import type { KernelPeer } from '../store/peers';
import type { ServerRecord } from '../store/servers';
import { SECRET_FILE } from '../exec/command';
import { isWireGuardKey } from './keys';
import { parseCidr, parseIpv4 } from '../net/ipv4';
import { parseCidr6, parseIpv6 } from '../net/ipv6';

/** The peers a server's interface holds: enabled ones only (disabled peers are off the interface). */
export const livePeers = (peers: Iterable<KernelPeer>): KernelPeer[] => [...peers].filter((p) => p.enabled);

function checkedKey(key: string, what: string): string {
  if (!isWireGuardKey(key)) throw new Error(`${what} is not a WireGuard key`);
  return key;
}

/** The peer's addresses as the interface routes them to it: its IPv4 /32, its IPv6 /128 when it has one, and the networks behind it. */
export function allowedIpOf(peer: Pick<KernelPeer, 'ip' | 'ip6' | 'networks'>): string {
  if (parseIpv4(peer.ip) === null) throw new Error(`peer address ${peer.ip} is not an IPv4 address`);
  if (peer.ip6 !== null && parseIpv6(peer.ip6) === null) throw new Error(`peer address ${peer.ip6} is not an IPv6 address`);
  const own = peer.ip6 === null ? [`${peer.ip}/32`] : [`${peer.ip}/32`, `${peer.ip6}/128`];
  for (const n of peer.networks ?? []) if (parseCidr(n) === null && parseCidr6(n) === null) throw new Error(`network ${n} is not a prefix`);
  return [...own, ...(peer.networks ?? [])].join(',');
}

export const networksOf = (p: Pick<KernelPeer, 'networks'> | null | undefined): string[] => p?.networks ?? [];
const sameNetworks = (a: KernelPeer, b: KernelPeer) => networksOf(a).join(',') === networksOf(b).join(',');

/** The `wg syncconf` text of a server: its key, its port and every enabled peer. Holds secrets. */
export function renderInterfaceConf(server: ServerRecord, peers: Iterable<KernelPeer>): string {
  const lines = ['[Interface]', `PrivateKey = ${checkedKey(server.privateKey, 'server private key')}`, `ListenPort = ${server.listenPort}`];
  for (const p of livePeers(peers)) {
    lines.push('', '[Peer]', `PublicKey = ${checkedKey(p.publicKey, `public key of peer ${p.id}`)}`,
      `PresharedKey = ${checkedKey(p.presharedKey, `preshared key of peer ${p.id}`)}`, `AllowedIPs = ${allowedIpOf(p)}`);
  }
  return lines.join('\n') + '\n';
}

/**
 * `wg addconf` text of whole peers (each with its keepalive off, as wgcp holds every peer)
 * and of peers whose keepalive alone is put off. No `[Interface]`: nothing else changes.
 * Holds secrets.
 */
export function renderPeersConf(peers: Iterable<KernelPeer>, keepaliveOff: Iterable<string> = []): string {
  const lines: string[] = [];
  for (const p of peers) {
    lines.push('[Peer]', `PublicKey = ${checkedKey(p.publicKey, `public key of peer ${p.id}`)}`,
      `PresharedKey = ${checkedKey(p.presharedKey, `preshared key of peer ${p.id}`)}`, `AllowedIPs = ${allowedIpOf(p)}`, 'PersistentKeepalive = off', '');
  }
  for (const key of keepaliveOff) lines.push('[Peer]', `PublicKey = ${checkedKey(key, 'peer public key')}`, 'PersistentKeepalive = off', '');
  return lines.join('\n');
}

/** `wg set` arguments that put one peer on an interface; its preshared key is read from a private file. */
export function peerSetArgs(ifname: string, peer: KernelPeer): string[] {
  return ['set', ifname, 'peer', checkedKey(peer.publicKey, `public key of peer ${peer.id}`), 'preshared-key', SECRET_FILE, 'allowed-ips', allowedIpOf(peer)];
}

export function peerRemoveArgs(ifname: string, publicKey: string): string[] {
  return ['set', ifname, 'peer', checkedKey(publicKey, 'peer public key'), 'remove'];
}

export interface PeerOp { args: string[]; secret?: string }

/**
 * The `wg set` calls that move an interface from one state of a peer to another: nothing,
 * a removal, an addition, or both when the key changed.
 */
export function peerOps<P extends KernelPeer>(ifname: string, before: P | null, after: P | null): PeerOp[] {
  const was = before && before.enabled ? before : null;
  const will = after && after.enabled ? after : null;
  const ops: PeerOp[] = [];
  if (was && (!will || will.publicKey !== was.publicKey)) ops.push({ args: peerRemoveArgs(ifname, was.publicKey) });
  if (will && (!was || was.publicKey !== will.publicKey || was.ip !== will.ip || was.ip6 !== will.ip6 || was.presharedKey !== will.presharedKey || !sameNetworks(was, will))) {
    ops.push({ args: peerSetArgs(ifname, will), secret: will.presharedKey + '\n' });
  }
  return ops;
}
