// Device records as the two APIs show them: the control plane's view (camel-cased like the
// rest of it) and the tunnel fields of the device contract (snake_case, hex keys).
// Who sees a device_id (a credential) is said by the description, resources/device.ts.
import type { DeviceRecord, HeartbeatView } from '../store/devices';
import type { ForwardRecord } from '../store/forwards';
import type { PeerRecord } from '../store/peers';
import type { RegTokenRecord } from '../store/regtokens';
import type { ServerRecord } from '../store/servers';
import type { Role } from '../store/roles';
import { present } from '../resources/describe';
import { DEVICE } from '../resources/device';
import { FORWARD } from '../resources/forward';
import { REGTOKEN } from '../resources/regtoken';
import { peerAllowedIps } from '../wg/conf';
import { AUTO_DNS, routesOf, routesText, serverNetworks, tunnelIp } from '../wg/client-options';
import { resolverListensNow } from '../net/resolver-listening';
import { formatIpv4, parseCidr } from '../net/ipv4';
import { keyToHex } from '../wg/keys';
import { formatIpv6, formatNetwork6, parseCidr6 } from '../net/ipv6';

/** Who reads a view: a role, or null for what leaves the daemon in events and logs (a viewer's sight). */
export type DeviceReader = Role | null;

/**
 * A device's id in the control plane: its peer's id (resources/device.ts says why).
 */
export const deviceNumber = (d: Pick<DeviceRecord, 'peerId'>): number => d.peerId;

/** A device as `reader` sees it (resources/device.ts): the device_id whole for an admin, its prefix for everyone. */
export function presentDevice(d: DeviceRecord, peer: PeerRecord | undefined, hash: string, reader: DeviceReader) {
  return present(DEVICE, d, reader ?? 'viewer', { peer, forwardsHash: hash });
}

/** `device`: the forward's device (its id, never its device_id). */
export function presentForward(f: ForwardRecord, device: Pick<DeviceRecord, 'peerId'>) {
  return present(FORWARD, f, 'viewer', { deviceNumber: deviceNumber(device) });
}

/** `device`: the device that used the token, if it is still there (deviceID null otherwise). */
export function presentRegToken(t: RegTokenRecord, now: string, device: Pick<DeviceRecord, 'peerId'> | undefined) {
  return present(REGTOKEN, t, 'viewer', { now, deviceNumber: device ? deviceNumber(device) : null });
}

/** What the tunnel fields are made of: the device's peer and its server, as the heartbeat's one read gives them. */
export type TunnelSource = Omit<HeartbeatView, 'suspended' | 'forwardsJson' | 'privateKey'> & { privateKey: string };

export function tunnelSource(server: ServerRecord, peer: PeerRecord & { privateKey: string }): TunnelSource {
  return {
    ip: peer.ip, privateKey: peer.privateKey, presharedKey: peer.presharedKey, allowInternet: peer.allowInternet,
    serverPublicKey: server.publicKey, endpoint: server.endpoint, address: server.address, dns: server.dns,
    ip6: peer.ip6, address6: server.address6,
    clientAllowedIPs: routesText(peer.clientAllowedIPs ?? server.clientAllowedIPs), networks: (peer.networks ?? []).join(', '),
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
    allowed_ips: deviceRoutes(t).v4,
    ...ipv6Tunnel(t),
  };
}

/**
 * What the device routes into its tunnel, by family: the peer's clientAllowedIPs (else its
 * server's default; by allowInternet when neither says). Custom prefixes let a device with a
 * LAN behind it (`networks`) route the router's LAN: its WireGuard then also accepts packets
 * from there. `full` and `split` answer exactly what allowInternet did before.
 */
function deviceRoutes(t: TunnelSource): { v4: string; v6: string } {
  const routes = routesOf(t.clientAllowedIPs) ?? (t.allowInternet ? 'full' : 'split');
  if (routes === 'full') return { v4: peerAllowedIps({ address: t.address }, true), v6: '::/0' };
  const list = routes === 'split' ? serverNetworks({ address: t.address, address6: t.address6 }) : routes;
  const v4 = list.filter((p) => !p.includes(':'));
  return { v4: v4.length ? v4.join(', ') : serverNetworks({ address: t.address })[0], v6: list.filter((p) => p.includes(':')).join(', ') };
}

/**
 * The contract's fields stay IPv4; a dual-stack device's IPv6 rides in extra fields that
 * agents read when present (older agents ignore unknown fields, as the contract says).
 */
function ipv6Tunnel(t: TunnelSource) {
  if (t.ip6 === null || t.address6 === null) return {};
  const prefix = parseCidr6(t.address6)!;
  return { internal_ip6: t.ip6, server_wg_ip6: formatIpv6(prefix.ip), allowed_ips6: deviceRoutes(t).v6 || formatNetwork6(prefix) };
}
