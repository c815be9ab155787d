// Admin routes for devices: list, read, suspend or reinstate, delete (with its peer), and
// key rotation (the device picks its new keys up at its next heartbeat).
import createError from 'http-errors';
import type { App } from '../app';
import type { Route } from '../http/router';
import { noContent, ok } from '../http/reply';
import type { DeviceRecord } from '../store/devices';
import type { PeerRecord } from '../store/peers';
import { isUuid } from '../device/identifiers';
import { forwardsHash } from '../device/forwards-hash';
import { generateKeyPair, generatePresharedKey } from '../wg/keys';
import { readBool, required } from './fields';
import { deletePeer } from './peers';
import { hasReason, withReason, withoutReason } from '../ops/disable-reasons';
import { presentPeer } from './present';
import { presentDevice } from './devices-present';
import { deviceContext } from './devices-context';

/** Heartbeat reports are written behind their answers: whoever reads a device stores pending ones first. */
export function findDevice(app: App, idText: string): DeviceRecord {
  deviceContext(app).heartbeats.flush();
  const device = isUuid(idText) ? app.store.devices.get(idText.toLowerCase()) : undefined;
  if (!device) throw createError(404, 'device not found');
  return device;
}

export function showDevice(app: App, d: DeviceRecord) {
  return presentDevice(d, app.store.peers.get(d.peerId), forwardsHash(app.store.forwards.listByDevice(d.deviceId)));
}

/** Runs a change of a device's peer: store, kernel, commit, then the peerUpdated event. */
function changePeer(app: App, device: DeviceRecord, change: (before: PeerRecord, now: string) => PeerRecord, alsoInTx: () => void = () => {}) {
  const { store, kernel } = app;
  const { server, before, after } = store.tx(() => {
    const current = store.devices.get(device.deviceId);
    const before = current && store.peers.get(current.peerId);
    if (!before) throw createError(404, 'device not found');
    const server = store.servers.get(before.serverId)!;
    const after = change(before, app.now().toISOString());
    if (after !== before) {
      store.peers.update(after);
      kernel.applyPeer({ server, before, after });
    }
    alsoInTx();
    return { server, before, after };
  });
  if (after !== before) app.events.publish('peerUpdated', server.id, { mode: server.mode, peer: presentPeer(after) });
  return server;
}

export function deviceRoutes(app: App): Route[] {
  const { store } = app;
  return [
    {
      method: 'GET', path: '/api/devices', auth: 'control',
      handler() {
        deviceContext(app).heartbeats.flush();
        return ok(store.devices.list().map((d) => showDevice(app, d)));
      },
    },
    {
      method: 'GET', path: '/api/devices/:id', auth: 'control',
      handler: (ctx) => ok(showDevice(app, findDevice(app, ctx.params.id))),
    },
    {
      method: 'PUT', path: '/api/devices/:id', auth: 'control',
      async handler(ctx) {
        const device = findDevice(app, ctx.params.id);
        const suspended = required(readBool(await ctx.body(), 'suspended'), 'suspended');
        // Suspension is a reason of its own: reinstating lifts it and nothing else, so a
        // peer an admin disabled or one over its data limit stays off.
        const server = changePeer(app, device, (before, now) => {
          const next = suspended ? withReason(before, 'suspended') : withoutReason(before, 'suspended');
          return next.enabled === before.enabled && hasReason(next, 'suspended') === hasReason(before, 'suspended') ? before : { ...next, updatedAt: now };
        }, () => store.devices.setSuspended(device.deviceId, suspended, app.now().toISOString()));
        const shown = showDevice(app, store.devices.get(device.deviceId)!);
        if (suspended && !device.suspended) app.events.publish('deviceSuspended', server.id, { device: shown });
        return ok(shown);
      },
    },
    {
      method: 'DELETE', path: '/api/devices/:id', auth: 'control',
      handler(ctx) {
        const device = findDevice(app, ctx.params.id);
        const peer = store.peers.get(device.peerId);
        if (!peer) throw createError(404, 'device not found');
        // The device row and its forwards go with the peer (ON DELETE CASCADE).
        deletePeer(app, peer);
        return noContent();
      },
    },
    {
      method: 'POST', path: '/api/devices/:id/rotate', auth: 'control',
      handler(ctx) {
        const device = findDevice(app, ctx.params.id);
        changePeer(app, device, (before, now) => {
          const keys = generateKeyPair();
          return { ...before, publicKey: keys.publicKey, privateKey: keys.privateKey, presharedKey: generatePresharedKey(), updatedAt: now };
        });
        return ok(showDevice(app, store.devices.get(device.deviceId)!));
      },
    },
  ];
}
