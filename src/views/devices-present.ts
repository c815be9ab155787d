// Device records as the two APIs show them: the admin view (camel-cased like the rest of
// the control plane) and the tunnel fields of the device contract (snake_case, hex keys).
import type { DeviceRecord, HeartbeatView } from '../store/devices';
import type { ForwardRecord } from '../store/forwards';
import type { PeerRecord } from '../store/peers';
import type { RegTokenRecord } from '../store/regtokens';
import type { ServerRecord } from '../store/servers';
import { peerAllowedIps } from '../wg/conf';
import { AUTO_DNS, tunnelIp } from '../wg/client-options';
import { resolverListensNow } from '../net/resolver-listening';
import { formatIpv4, parseCidr } from '../wg/ipv4';
import { keyToHex } from '../wg/keys';
import { formatIpv6, formatNetwork6, parseCidr6 } from '../wg/ipv6';

export function presentDevice(d: DeviceRecord, peer: PeerRecord | undefined, hash: string) {
  return {
    id: d.deviceId,
    serverID: d.serverId,
    peerID: d.peerId,
    hwid: d.hwid,
    ip: peer?.ip ?? '',
    suspended: d.suspended,
    status: d.status,
    state: d.state,
    tunnelUp: d.tunnelUp,
    lastHandshake: d.lastHandshake,
    lastSeenAt: d.lastSeenAt,
    lastSourceAddress: d.lastSource,
    forwardsHash: hash,
    provisionedAt: d.provisionedAt,
    createdAt: d.createdAt,
    updatedAt: d.updatedAt,
  };
}

export function presentForward(f: ForwardRecord) {
  return { id: f.id, deviceID: f.deviceId, protocol: f.protocol, listenPort: f.listenPort, targetPort: f.targetPort, createdAt: f.createdAt };
}

export function presentRegToken(t: RegTokenRecord, now: string) {
  const state = t.usedAt !== null ? 'used' : t.expiresAt <= now ? 'expired' : 'unused';
  return { token: t.token, serverID: t.serverId, state, createdAt: t.createdAt, expiresAt: t.expiresAt, usedAt: t.usedAt, deviceID: t.deviceId };
}

/** What the tunnel fields are made of: the device's peer and its server, as the heartbeat's one read gives them. */
export type TunnelSource = Omit<HeartbeatView, 'suspended' | 'forwardsJson' | 'privateKey'> & { privateKey: string };

export function tunnelSource(server: ServerRecord, peer: PeerRecord & { privateKey: string }): TunnelSource {
  return {
    ip: peer.ip, privateKey: peer.privateKey, presharedKey: peer.presharedKey, allowInternet: peer.allowInternet,
    serverPublicKey: server.publicKey, endpoint: server.endpoint, address: server.address, dns: server.dns,
    ip6: peer.ip6, address6: server.address6,
  };
}

/** The contract's `dns` string: `auto` is the tunnel address when a resolver answers there, else none (''). */
function deviceDns(t: TunnelSource): string {
  if (t.dns !== AUTO_DNS) return t.dns;
  const ip = tunnelIp(t.address);
  return resolverListensNow(ip) ? ip : '';
}

/** The tunnel fields shared by the provisioning payload and the heartbeat answer. */
export function deviceTunnel(t: TunnelSource) {
  return {
    internal_ip: t.ip,
    private_key: keyToHex(t.privateKey),
    preshared_key: keyToHex(t.presharedKey),
    server_pub: keyToHex(t.serverPublicKey),
    endpoint: t.endpoint,
    server_wg_ip: formatIpv4(parseCidr(t.address)!.ip),
    dns: deviceDns(t),
    allowed_ips: peerAllowedIps({ address: t.address }, t.allowInternet),
    ...ipv6Tunnel(t),
  };
}

/**
 * The contract's fields stay IPv4; a dual-stack device's IPv6 rides in extra fields that
 * agents read when present (older agents ignore unknown fields, as the contract says).
 */
function ipv6Tunnel(t: TunnelSource) {
  if (t.ip6 === null || t.address6 === null) return {};
  const prefix = parseCidr6(t.address6)!;
  return { internal_ip6: t.ip6, server_wg_ip6: formatIpv6(prefix.ip), allowed_ips6: t.allowInternet ? '::/0' : formatNetwork6(prefix) };
}
