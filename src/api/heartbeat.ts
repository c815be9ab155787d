// POST /api/v1/heartbeat: records what the device reports and answers its current tunnel
// configuration (keys may have rotated) with the forwards_hash it compares to its own.
import createError, { isHttpError } from 'http-errors';
import type { App } from '../app';
import type { Route } from '../http/router';
import { ok } from '../http/reply';
import { forwardsHash } from '../device/forwards-hash';
import { deviceTunnel } from './devices-present';
import { readHeartbeat } from './heartbeat-input';
import { DEVICE_BODY_LIMIT, sourceAddress } from './provision';

export function heartbeatRoute(app: App): Route {
  const { store } = app;
  return {
    method: 'POST', path: '/api/v1/heartbeat', auth: 'none', bodyLimit: DEVICE_BODY_LIMIT,
    async handler(ctx) {
      try {
        const input = readHeartbeat(await ctx.body());
        const device = store.devices.get(input.deviceId);
        if (!device) throw createError(404, 'device not found');
        if (device.suspended) throw createError(403, 'device is suspended');
        const peer = store.peers.get(device.peerId);
        const server = store.servers.get(device.serverId);
        if (!peer || !server) throw new Error(`device ${device.deviceId} has lost its peer or server`);
        if (peer.privateKey === null) throw new Error(`the peer of device ${device.deviceId} has no stored private key (was its publicKey replaced?)`);
        store.devices.recordHeartbeat(device.deviceId, {
          status: input.status, state: input.state, tunnelUp: input.tunnelUp, lastHandshake: input.lastHandshake,
          seenAt: app.now().toISOString(), source: sourceAddress(ctx.req),
        });
        return ok({
          device_id: device.deviceId,
          status: 'ok',
          ...deviceTunnel(server, { ...peer, privateKey: peer.privateKey }),
          forwards_hash: forwardsHash(store.forwards.listByDevice(device.deviceId)),
        });
      } catch (err) {
        if (isHttpError(err) && err.status < 500) throw err;
        app.log.error('heartbeat failed', { requestId: ctx.requestId, error: err instanceof Error ? err.message : String(err) });
        throw createError(500, 'heartbeat failed');
      }
    },
  };
}
