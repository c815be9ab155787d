// Device operations for admins: suspend or reinstate, delete (with its peer), rotate keys.
// A device is a peer of its server, so each is a change of that peer, in one transaction
// with its kernel change, then its events.
import createError from 'http-errors';
import type { App } from '../app';
import { deviceContext } from '../device/context';
import { forwardsHash } from '../device/forwards-hash';
import { isUuid } from '../device/identifiers';
import type { DeviceRecord } from '../store/devices';
import type { PeerRecord } from '../store/peers';
import type { ServerRecord } from '../store/servers';
import { presentDevice } from '../views/devices-present';
import { presentPeer } from '../views/present';
import { generateKeyPair, generatePresharedKey } from '../wg/keys';
import { hasReason, withReason, withoutReason } from './disable-reasons';
import { deletePeer } from './peers';

/** Heartbeat reports are written behind their answers: whoever reads a device stores pending ones first. */
export function getDevice(app: App, idText: string): DeviceRecord {
  deviceContext(app).heartbeats.flush();
  const device = isUuid(idText) ? app.store.devices.get(idText.toLowerCase()) : undefined;
  if (!device) throw createError(404, 'device not found');
  return device;
}

export function listDevices(app: App): DeviceRecord[] {
  deviceContext(app).heartbeats.flush();
  return app.store.devices.list();
}

export function showDevice(app: App, d: DeviceRecord) {
  return presentDevice(d, app.store.peers.get(d.peerId), forwardsHash(app.store.forwards.listByDevice(d.deviceId)));
}

/** A change of a device's peer: store, kernel, commit, then peerUpdated (only when it changed). */
function changeDevicePeer(app: App, deviceId: string, change: (before: PeerRecord, device: DeviceRecord, now: string) => PeerRecord, alsoInTx: (device: DeviceRecord) => void = () => {}) {
  const { store, kernel } = app;
  const result = store.tx(() => {
    const device = store.devices.get(deviceId);
    const before = device && store.peers.get(device.peerId);
    if (!device || !before) throw createError(404, 'device not found');
    const server = store.servers.get(before.serverId)!;
    const after = change(before, device, app.now().toISOString());
    if (after !== before) {
      store.peers.update(after);
      kernel.applyPeer({ server, before, after });
    }
    alsoInTx(device);
    return { server, before, after, device };
  });
  if (result.after !== result.before) app.events.publish('peerUpdated', result.server.id, { mode: result.server.mode, peer: presentPeer(result.after) });
  return result;
}

/**
 * Suspension is a reason of its own: reinstating lifts it and nothing else, so a peer an
 * admin disabled or one over its data limit stays off.
 */
export function setDeviceSuspended(app: App, deviceId: string, suspended: boolean): DeviceRecord {
  let was = false;
  const { server } = changeDevicePeer(app, deviceId, (before, device, now) => {
    was = device.suspended;
    const next = suspended ? withReason(before, 'suspended') : withoutReason(before, 'suspended');
    return next.enabled === before.enabled && hasReason(next, 'suspended') === hasReason(before, 'suspended') ? before : { ...next, updatedAt: now };
  }, (device) => app.store.devices.setSuspended(device.deviceId, suspended, app.now().toISOString()));
  const device = app.store.devices.get(deviceId)!;
  if (suspended && !was) app.events.publish('deviceSuspended', server.id, { device: showDevice(app, device) });
  return device;
}

/** New keys for the device's peer; the device picks them up at its next heartbeat. */
export function rotateDeviceKeys(app: App, deviceId: string): DeviceRecord {
  changeDevicePeer(app, deviceId, (before, _device, now) => {
    const keys = generateKeyPair();
    return { ...before, publicKey: keys.publicKey, privateKey: keys.privateKey, presharedKey: generatePresharedKey(), updatedAt: now };
  });
  return app.store.devices.get(deviceId)!;
}

/** The device row and its forwards go with its peer (ON DELETE CASCADE). */
export function deleteDevice(app: App, deviceId: string): { server: ServerRecord; peer: PeerRecord } {
  const device = app.store.devices.get(deviceId);
  if (!device) throw createError(404, 'device not found');
  return deletePeer(app, device.peerId);
}
