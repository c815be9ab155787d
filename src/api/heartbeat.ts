// POST /api/v1/heartbeat: records what the device reports and answers its current tunnel
// configuration (keys may have rotated) with the forwards_hash it compares to its own.
// The hot path of the daemon: one joined read, and the report written behind the answer.
import createError, { isHttpError } from 'http-errors';
import type { App } from '../app';
import type { Route } from '../http/router';
import { ok } from '../http/reply';
import { forwardsHashOfJson } from '../device/forwards-hash';
import { deviceContext } from './devices-context';
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
        const view = store.devices.heartbeatView(input.deviceId);
        if (!view) throw createError(404, 'device not found');
        if (view.suspended) throw createError(403, 'device is suspended');
        const { privateKey } = view;
        if (privateKey === null) throw new Error(`the peer of device ${input.deviceId} has no stored private key (was its publicKey replaced?)`);
        deviceContext(app).heartbeats.record(input.deviceId, {
          status: input.status, state: input.state, tunnelUp: input.tunnelUp, lastHandshake: input.lastHandshake,
          seenAt: app.now().toISOString(), source: sourceAddress(ctx.req),
        });
        return ok({
          device_id: input.deviceId,
          status: 'ok',
          ...deviceTunnel({ ...view, privateKey }),
          forwards_hash: forwardsHashOfJson(view.forwardsJson),
        });
      } catch (err) {
        if (isHttpError(err) && err.status < 500) throw err;
        app.log.error('heartbeat failed', { requestId: ctx.requestId, error: err instanceof Error ? err.message : String(err) });
        throw createError(500, 'heartbeat failed');
      }
    },
  };
}
