// Provisioning inside one transaction: validate in the contract's order, let one atomic
// UPDATE decide who wins the token, then create the device's peer (or give a known hwid
// new keys) and apply it to the kernel. A throw anywhere rolls all of it back, token included.
import createError from 'http-errors';
import type { App } from '../app';
import type { DeviceRecord } from '../store/devices';
import type { PeerRecord } from '../store/peers';
import type { ServerRecord } from '../store/servers';
import { isHardwareId, isUuid, newUuid } from '../device/identifiers';
import { generateKeyPair, generatePresharedKey } from '../wg/keys';
import { allocatePeerIp, allocatePeerIp6 } from './peer-rules';

export interface Provisioned {
  server: ServerRecord;
  device: DeviceRecord;
  peer: PeerRecord & { privateKey: string };
  /** null for a new device; the peer as it was when a known hwid got new keys. */
  replaced: PeerRecord | null;
}

// Least privilege, as for any new peer: the device routes only the server's subnet into
// its tunnel (forwarded connections still work: the router masquerades them into the tunnel).
// An admin may set allowInternet on the device's peer for a full tunnel.
const DEVICE_PEER_INTERNET = false;

/** Checks token format, then hwid; the caller's body is untrusted. */
export function readProvisionBody(body: Record<string, unknown>): { token: string; hwid: string } {
  if (!isUuid(body.token)) throw createError(400, 'invalid token format');
  if (!isHardwareId(body.hwid)) throw createError(400, 'invalid hardware id');
  return { token: body.token.toLowerCase(), hwid: body.hwid };
}

export function provisionDevice(app: App, token: string, hwid: string): Provisioned {
  const { store, kernel } = app;
  const now = app.now().toISOString();
  return store.tx(() => {
    if (!store.regTokens.consume(token, now)) {
      const rec = store.regTokens.get(token);
      if (!rec) throw createError(403, 'invalid token');
      if (rec.usedAt !== null) throw createError(400, 'token already used');
      throw createError(403, 'token expired');
    }
    const server = store.servers.get(store.regTokens.get(token)!.serverId)!;
    const known = store.devices.byHwid(server.id, hwid);
    const keys = generateKeyPair();
    const presharedKey = generatePresharedKey();
    let result: Provisioned;
    if (known) {
      const before = store.peers.get(known.peerId)!;
      const peer = { ...before, publicKey: keys.publicKey, privateKey: keys.privateKey, presharedKey, updatedAt: now };
      store.peers.update(peer);
      kernel.applyPeer({ server, before, after: peer });
      store.devices.markProvisioned(known.deviceId, now);
      result = { server, device: store.devices.get(known.deviceId)!, peer, replaced: before };
    } else {
      const ip = freeAddress(app, server);
      const inserted = store.peers.insert({
        serverId: server.id, name: `device-${hwid}`.slice(0, 64), email: '', ip, ip6: allocatePeerIp6(store, server, ip),
        publicKey: keys.publicKey, privateKey: keys.privateKey, presharedKey,
        allowAccess: [], allowInternet: DEVICE_PEER_INTERNET, enabled: true, disabledReasons: [],
        dataLimitGB: 0, usageBytes: 0, expiresAt: null, createdAt: now, updatedAt: now,
      });
      const peer = { ...inserted, privateKey: keys.privateKey };
      kernel.applyPeer({ server, before: null, after: peer });
      const device = store.devices.insert({ deviceId: newUuid(), serverId: server.id, peerId: peer.id, hwid, provisionedAt: now, createdAt: now, updatedAt: now });
      result = { server, device, peer, replaced: null };
    }
    store.regTokens.setDevice(token, result.device.deviceId);
    return result;
  });
}

function freeAddress(app: App, server: ServerRecord): string {
  try {
    return allocatePeerIp(app.store, server);
  } catch {
    // A full subnet is the router's problem, not the device's: a 500, logged with the reason.
    throw new Error(`no free address is left in ${server.address} for a new device of server ${server.id}`);
  }
}
