// Device operations for admins: suspend or reinstate, delete (with its peer), rotate keys.
// A device is a peer of its server, so each is a change of that peer: a plan for the
// change runner with its kernel change and its events.
import { apiError } from '../error-registry';
import type { App } from '../app';
import { forwardsHash } from '../device/forwards-hash';
import type { DeviceRecord } from '../store/devices';
import type { PeerRecord } from '../store/peers';
import type { ServerRecord } from '../store/servers';
import { presentDevice, type DeviceReader } from '../views/devices-present';
import type { Store } from '../store/store';
import type { ChangeOptions, Commit } from './runner';
import { generateKeyPair, generatePresharedKey } from '../wg/keys';
import { hasReason, leavesInterface, withReason, withoutReason } from '../peer-state';
import { checkNetworks, planPeerDelete } from './peers';
import { isHttpError } from 'http-errors';
import { canonicalNetworks } from '../device/heartbeat-answers';

/**
 * A device by its control-plane id (its peer's id; never its device_id, a credential).
 * Heartbeat reports are written behind their answers: whoever reads a device stores pending ones first.
 */
export function getDevice(app: App, id: number): DeviceRecord {
  app.services.device.heartbeats.flush();
  const device = app.store.devices.byPeer(id);
  if (!device) throw apiError('WGCP_DEVICE_NOT_FOUND');
  return device;
}

export function listDevices(app: App): DeviceRecord[] {
  app.services.device.heartbeats.flush();
  return app.store.devices.list();
}

export function showDevice(app: App, d: DeviceRecord, reader: DeviceReader) {
  return presentDevice(d, app.store.peers.get(d.peerId), forwardsHash(app.store.forwards.listByDevice(d.deviceId)), reader);
}

/**
 * A change of a device's peer: the peer decided from the device as planned, the kernel
 * change, then in the commit the device's own rows and peerUpdated (only when the peer changed).
 */
function changeDevicePeer<R>(app: App, action: string, deviceId: string, opts: ChangeOptions | undefined,
  change: (before: PeerRecord, device: DeviceRecord, now: string) => PeerRecord,
  alsoInCommit: (c: Commit, device: DeviceRecord, server: ServerRecord) => R,
): Promise<R> {
  return app.runner.run(action, (store) => {
    const device = store.devices.get(deviceId);
    const before = device && store.peers.get(device.peerId);
    if (!device || !before) throw apiError('WGCP_DEVICE_NOT_FOUND');
    const server = store.servers.get(before.serverId)!;
    const after = change(before, device, app.now().toISOString());
    const changed = after !== before;
    return {
      kernel: changed ? [{ peer: { server, before, after } }] : [],
      commit(c) {
        if (changed) {
          c.store.peers.update(after);
          if (leavesInterface(before, after)) c.store.usage.forgetBaseline(after.id);
          c.peerEvent('peerUpdated', server, after);
        }
        return alsoInCommit(c, device, server);
      },
    };
  }, opts);
}

/**
 * Suspension is a reason of its own: reinstating lifts it and nothing else, so a peer an
 * admin disabled or one over its data limit stays off.
 */
export function setDeviceSuspended(app: App, deviceId: string, suspended: boolean, opts?: ChangeOptions): Promise<DeviceRecord> {
  return changeDevicePeer(app, suspended ? 'device.suspend' : 'device.reinstate', deviceId, opts, (before, _device, now) => {
    const next = suspended ? withReason(before, 'suspended') : withoutReason(before, 'suspended');
    return next.enabled === before.enabled && hasReason(next, 'suspended') === hasReason(before, 'suspended') ? before : { ...next, updatedAt: now };
  }, ({ store, event }, device, server) => {
    store.devices.setSuspended(device.deviceId, suspended, app.now().toISOString());
    const after = store.devices.get(deviceId)!;
    if (suspended && !device.suspended) event('deviceSuspended', server.id, { device: deviceEventData(store, after) });
    return after;
  });
}

/** New keys for the device's peer; the device picks them up at its next heartbeat. */
export function rotateDeviceKeys(app: App, deviceId: string, opts?: ChangeOptions): Promise<DeviceRecord> {
  return changeDevicePeer(app, 'device.rotate', deviceId, opts, (before, _device, now) => {
    const keys = generateKeyPair();
    return { ...before, publicKey: keys.publicKey, privateKey: keys.privateKey, presharedKey: generatePresharedKey(), updatedAt: now };
  }, ({ store }) => store.devices.get(deviceId)!);
}

/**
 * The networks a device's heartbeat reports behind it, on its peer: checked by the same rules
 * as a peer's (ops/network-rules.ts) and applied as any peer change. The same set as stored
 * (in any order) writes nothing: no kernel step, no row, no audit line. A refused set is 400
 * WGCP_DEVICE_NETWORKS_REFUSED with the rule it broke.
 */
export function setDeviceNetworks(app: App, deviceId: string, networks: string[], opts?: ChangeOptions): Promise<PeerRecord> {
  return app.runner.run('device.networks', (store) => {
    const device = store.devices.get(deviceId);
    const before = device && store.peers.get(device.peerId);
    if (!device || !before) throw apiError('WGCP_DEVICE_NOT_FOUND');
    if (canonicalNetworks(before.networks ?? []) === canonicalNetworks(networks)) return { commit: () => before, audit: false };
    try {
      checkNetworks(store, networks, before.id);
    } catch (err) {
      if (isHttpError(err) && err.status === 400) throw apiError('WGCP_DEVICE_NETWORKS_REFUSED', { reason: err.message.replace(/^networks /, '') }, { field: 'networks' });
      throw err;
    }
    const server = store.servers.get(before.serverId)!;
    const after: PeerRecord = { ...before, networks, updatedAt: app.now().toISOString() };
    return {
      kernel: [{ peer: { server, before, after } }],
      commit({ store, peerEvent }) {
        store.peers.update(after);
        peerEvent('peerUpdated', server, after);
        return after;
      },
      audit: () => ({ targetType: 'peer', targetId: before.id, summary: { networks, was: { networks: before.networks ?? [] } } }),
    };
  }, opts);
}

/** The device row and its forwards go with its peer (ON DELETE CASCADE). */
export function deleteDevice(app: App, deviceId: string, opts?: ChangeOptions): Promise<{ server: ServerRecord; peer: PeerRecord }> {
  return app.runner.run('device.delete', (store) => {
    const device = store.devices.get(deviceId);
    const peer = device && store.peers.get(device.peerId);
    if (!device || !peer) throw apiError('WGCP_DEVICE_NOT_FOUND');
    return planPeerDelete(store, peer);
  }, opts);
}

/** A device as its events show it: as to any reader but an admin (a prefix of its device_id). */
export function deviceEventData(store: Store, d: DeviceRecord) {
  return presentDevice(d, store.peers.get(d.peerId), forwardsHash(store.forwards.listByDevice(d.deviceId)), null);
}
