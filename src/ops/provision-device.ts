// Provisioning as one change: the plan checks the token in the contract's order and decides
// the device's peer (or new keys for a known hwid); the kernel takes the peer; the commit
// spends the token with one atomic UPDATE, writes the peer and the device and records the
// events. A failure anywhere leaves the token unspent and the kernel as it was.
// A used token is 400 `token already used`, as the device contract's table says. Outside
// the contract, an admin may open a retry window (WGCP_PROVISION_RETRY_WINDOW): a device
// that lost power before it saved the answer gets the same configuration again, rebuilt
// from the rows the daemon keeps anyway, while nothing has changed the device since.
import crypto from 'node:crypto';
import { apiError } from '../error-registry';
import type { App } from '../app';
import type { DeviceRecord } from '../store/devices';
import type { PeerRecord } from '../store/peers';
import { newPeerRecord } from '../resources/peer';
import type { ServerRecord } from '../store/servers';
import type { Store } from '../store/store';
import { forwardsHash } from '../device/forwards-hash';
import { presentDevice } from '../views/devices-present';
import type { ChangeOptions } from './runner';
import { isHardwareId, isUuid, newUuid } from '../device/identifiers';
import { generateKeyPair, generatePresharedKey } from '../wg/keys';
import { allocatePeerIp, allocatePeerIp6 } from './peer-rules';

export interface Provisioned {
  server: ServerRecord;
  device: DeviceRecord;
  peer: PeerRecord & { privateKey: string };
  /** null for a new device; the peer as it was when a known hwid got new keys. */
  replaced: PeerRecord | null;
  /** True when this is the same answer again for a device that retried its token within the window. */
  replay: boolean;
}

// Least privilege, as for any new peer: the device routes only the server's subnet into
// its tunnel (forwarded connections still work: the router masquerades them into the tunnel).
// An admin may set allowInternet on the device's peer for a full tunnel.
const DEVICE_PEER_INTERNET = false;

/** Checks token format, then hwid; the caller's body is untrusted. */
export function readProvisionBody(body: Record<string, unknown>): { token: string; hwid: string } {
  if (!isUuid(body.token)) throw apiError('WGCP_DEVICE_TOKEN_FORMAT');
  if (!isHardwareId(body.hwid)) throw apiError('WGCP_DEVICE_HARDWARE_ID');
  return { token: body.token.toLowerCase(), hwid: body.hwid };
}

const sameHwid = (a: string, b: string): boolean =>
  crypto.timingSafeEqual(crypto.createHash('sha256').update(a).digest(), crypto.createHash('sha256').update(b).digest());

/**
 * The device a spent token provisioned, when this request is that device retrying within
 * the opt-in window: same token, same hwid, and the device and its peer exactly as that
 * provisioning left them. A suspension or reinstatement (the device's updatedAt), a key
 * rotation or any other change of its peer (the peer's updatedAt), a later provisioning
 * of the same hwid (provisionedAt) or a deletion end the window for good.
 */
function replayOf(store: Store, token: string, hwid: string, nowMs: number, windowMs: number): Provisioned | null {
  if (windowMs <= 0) return null;
  const rec = store.regTokens.get(token);
  if (!rec || rec.usedAt === null || rec.deviceId === null) return null;
  if (nowMs - Date.parse(rec.usedAt) >= windowMs) return null;
  const device = store.devices.get(rec.deviceId);
  if (!device || device.serverId !== rec.serverId || !sameHwid(device.hwid, hwid)) return null;
  const peer = store.peers.get(device.peerId);
  const server = store.servers.get(device.serverId);
  if (!peer || !server || peer.privateKey === null || device.suspended) return null;
  const untouched = device.provisionedAt === rec.usedAt && device.updatedAt === rec.usedAt && peer.updatedAt === rec.usedAt;
  if (!untouched) return null;
  return { server, device, peer: peer as PeerRecord & { privateKey: string }, replaced: null, replay: true };
}

/**
 * A cheap read before provisioning takes its turn: whether the token exists and is unspent,
 * so that unknown or spent tokens (a flood, or one leaked token sent again and again) never
 * draw from the fleet's request bucket (device/admission).
 */
export function tokenUnspent(app: App, token: string): boolean {
  const rec = app.store.regTokens.get(token);
  return rec !== undefined && rec.usedAt === null;
}

/** Why a token cannot be spent now, in the contract's order; null when it can. */
export function tokenRefusal(store: Store, token: string, now: string): Error | null {
  const rec = store.regTokens.get(token);
  if (!rec) return apiError('WGCP_DEVICE_TOKEN_INVALID');
  if (rec.usedAt !== null) return apiError('WGCP_DEVICE_TOKEN_USED');
  if (rec.expiresAt <= now) return apiError('WGCP_DEVICE_TOKEN_EXPIRED');
  return null;
}

export function provisionDevice(app: App, token: string, hwid: string, source: string, opts?: ChangeOptions): Promise<Provisioned> {
  const now = app.now().toISOString();
  return app.runner.run('device.provision', (store) => {
    const refusal = tokenRefusal(store, token, now);
    if (refusal) {
      const replay = replayOf(store, token, hwid, Date.parse(now), app.config.provisionRetryWindowS * 1000);
      // Nothing changes: an empty commit, audited so that a replay is on record.
      if (replay) return { commit: () => replay, audit: (r) => ({ targetType: 'device', targetId: r.device.deviceId.slice(0, 8), summary: { replay: true } }) };
      throw refusal;
    }
    const server = store.servers.get(store.regTokens.get(token)!.serverId)!;
    const known = store.devices.byHwid(server.id, hwid);
    const keys = generateKeyPair();
    const presharedKey = generatePresharedKey();
    const before = known ? store.peers.get(known.peerId)! : null;
    const peer: PeerRecord & { privateKey: string } = before
      ? { ...before, publicKey: keys.publicKey, privateKey: keys.privateKey, presharedKey, updatedAt: now }
      : newPeerRecord({
        id: store.peers.nextId(), serverId: server.id, name: `device-${hwid}`.slice(0, 64), ...freeAddresses(store, server),
        publicKey: keys.publicKey, privateKey: keys.privateKey, presharedKey,
        allowInternet: DEVICE_PEER_INTERNET, enabled: true, disabledReasons: [], createdAt: now, updatedAt: now,
      });
    const deviceId = known?.deviceId ?? newUuid();
    return {
      kernel: [{ peer: { server, before, after: peer } }],
      commit({ store, event, peerEvent }) {
        // The runner runs one change at a time, so the token is as planned; the UPDATE still decides.
        if (!store.regTokens.consume(token, now)) throw tokenRefusal(store, token, now) ?? apiError('WGCP_DEVICE_TOKEN_USED');
        if (before) {
          store.peers.update(peer);
          store.devices.markProvisioned(deviceId, now);
        } else {
          store.peers.insert(peer);
          store.devices.insert({ deviceId, serverId: server.id, peerId: peer.id, hwid, provisionedAt: now, createdAt: now, updatedAt: now });
        }
        store.regTokens.setDevice(token, deviceId);
        const device = store.devices.get(deviceId)!;
        const peerData = peerEvent(before ? 'peerUpdated' : 'peerCreated', server, peer);
        const hash = forwardsHash(store.forwards.listByDevice(deviceId));
        event('deviceProvisioned', server.id, { device: presentDevice(device, peer, hash, null), peer: peerData.peer, reprovisioned: before !== null, source });
        return { server, device, peer, replaced: before, replay: false };
      },
    };
  }, opts);
}

function freeAddresses(store: Store, server: ServerRecord): { ip: string; ip6: string | null } {
  let ip: string;
  try {
    ip = allocatePeerIp(store, server);
  } catch {
    // A full subnet is the router's problem, not the device's: a 500, logged with the reason.
    throw new Error(`no free address is left in ${server.address} for a new device of server ${server.id}`);
  }
  return { ip, ip6: allocatePeerIp6(store, server, ip) };
}
