// POST /api/v1/heartbeat: records what the device reports and answers its current tunnel
// configuration (keys may have rotated) with the forwards_hash it compares to its own.
// The hot path of the daemon: the answer text is kept per device until the data changes
// (device/heartbeat-answers), and the report is written behind the answer. The request
// buckets are drawn as device/admission says: the source's first, the device's and the
// fleet's once the device is known and not suspended.
import { isHttpError } from 'http-errors';
import { apiError } from '../error-registry';
import type { App } from '../app';
import type { Route } from '../http/router';
import { okJsonText } from '../http/reply';
import { deviceIdPrefix } from '../device/identifiers';
import { readHeartbeat } from './heartbeat-input';
import { DEVICE_BODY_LIMIT } from '../http/body';
import { sourceAddress } from './provision';
import { canonicalNetworks } from '../device/heartbeat-answers';
import { setDeviceNetworks } from '../ops/devices';

export function heartbeatRoute(app: App): Route {
  return {
    method: 'POST', path: '/api/v1/heartbeat', auth: 'none', bodyLimit: DEVICE_BODY_LIMIT,
    doc: () => ({
      summary: 'Device API: report status and get the current configuration', body: 'HeartbeatRequest', errorShape: 'DeviceError',
      answers: { 200: { description: 'success', shape: 'HeartbeatResponse' } },
      errors: [[400, '`invalid device id`, or a status field of the wrong type'], [403, '`device is suspended`'], [404, '`device not found`'],
        [413, 'body larger than 8 KiB (refused on Content-Length before it is read)'],
        [429, 'too many device requests from this address, this device or the fleet (WGCP_DEVICE_RATE); see Retry-After'], [500, '`heartbeat failed`']],
    }),
    async handler(ctx) {
      try {
        const { answers, heartbeats, admission } = app.services.device;
        const source = sourceAddress(ctx.req);
        admission.fromSource(source);
        const input = readHeartbeat(await ctx.body());
        let answer = answers.get(input.deviceId);
        if (!answer) throw apiError('WGCP_DEVICE_NOT_FOUND');
        if (answer.suspended) throw apiError('WGCP_DEVICE_SUSPENDED');
        admission.passedChecks(input.deviceId);
        // Reported networks that differ from the peer's are a change of the peer (the change
        // runner); the same ones, the usual case, cost a string compare and write nothing.
        if (input.networks !== undefined && canonicalNetworks(input.networks) !== answer.networks) {
          await setDeviceNetworks(app, input.deviceId, input.networks, { actor: { kind: 'device', id: null, name: `device ${deviceIdPrefix(input.deviceId)}`, role: null, address: source } });
          answer = answers.get(input.deviceId) ?? answer;
        }
        if (answer.body === null) throw new Error(`the peer of device ${deviceIdPrefix(input.deviceId)}… has no stored private key (was its publicKey replaced?)`);
        heartbeats.record(input.deviceId, {
          status: input.status, state: input.state, tunnelUp: input.tunnelUp, lastHandshake: input.lastHandshake, intervalS: input.intervalS,
          seenAt: app.now().toISOString(), source,
        });
        return okJsonText(answer.body);
      } catch (err) {
        if (isHttpError(err) && err.status < 500) throw err;
        app.log.error('heartbeat failed', { requestId: ctx.requestId, error: err instanceof Error ? err.message : String(err) });
        throw apiError('WGCP_HEARTBEAT_FAILED');
      }
    },
  };
}
