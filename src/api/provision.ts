// POST /api/v1/provision: a one-time token and a hardware id in, the device's tunnel
// configuration out, encrypted for that hwid. Failed attempts count against the source
// address; past the limit its failures get 429 until the window ends. A good token still
// provisions from a blocked address (a whole NAT shares it) and clears the count. The
// request buckets are drawn as device/admission says: the source's first, the fleet's once
// the body is well formed and names a token that exists and is unspent.
import { isHttpError } from 'http-errors';
import { apiError } from '../error-registry';
import type { IncomingMessage } from 'node:http';
import type { App } from '../app';
import type { Route } from '../http/router';
import { DEVICE_BODY_LIMIT } from '../http/body';
import { ok } from '../http/reply';
import { deviceKey, encryptPayload } from '../device/payload-crypto';
import { deviceIdPrefix } from '../device/identifiers';
import { limiterKey } from '../device/failure-limiter';
import { deviceTunnel, tunnelSource } from '../views/devices-present';
import { provisionDevice, readProvisionBody, tokenUnspent } from '../ops/provision-device';


/** The client's address, with IPv4-mapped IPv6 shown as plain IPv4. */
export function sourceAddress(req: IncomingMessage): string {
  return (req.socket.remoteAddress ?? 'unknown').replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/, '$1');
}

export function provisionRoute(app: App): Route {
  return {
    method: 'POST', path: '/api/v1/provision', auth: 'none', bodyLimit: DEVICE_BODY_LIMIT,
    doc: () => ({
      summary: 'Device API: exchange a registration token and hwid for the encrypted configuration', body: 'ProvisionRequest', errorShape: 'DeviceError',
      answers: { 200: { description: 'success', shape: 'ProvisionResponse' } },
      errors: [[400, '`invalid token format`, `invalid hardware id`, `token already used` (also for the same hwid again, unless WGCP_PROVISION_RETRY_WINDOW is set), or malformed JSON'],
        [403, '`invalid token` (unknown) or `token expired`'], [413, 'body larger than 8 KiB (refused on Content-Length before it is read)'],
        [429, 'too many failed attempts from this address, or too many device requests from this address or the fleet (WGCP_DEVICE_RATE); see Retry-After'], [500, '`provisioning failed`']],
    }),
    async handler(ctx) {
      const { salt, limiter, admission } = app.services.device;
      const source = sourceAddress(ctx.req);
      const counted = limiterKey(source);
      admission.fromSource(source);
      const failed = (err: unknown): Error => {
        if (isHttpError(err) && err.status < 500) {
          // A blocked address learns nothing more about why its attempts fail.
          const wait = limiter.blockedFor(counted);
          limiter.recordFailure(counted);
          if (wait > 0) return apiError('WGCP_PROVISIONING_THROTTLED', undefined, { headers: { 'Retry-After': String(wait) } });
          return err;
        }
        app.log.error('provisioning failed', { requestId: ctx.requestId, error: err instanceof Error ? err.message : String(err) });
        return apiError('WGCP_PROVISIONING_FAILED');
      };
      let input;
      try {
        input = readProvisionBody(await ctx.body());
      } catch (err) {
        throw failed(err);
      }
      if (tokenUnspent(app, input.token)) admission.passedChecks(null);
      let done;
      try {
        done = await provisionDevice(app, input.token, input.hwid, source, { actor: { kind: 'device', id: null, name: 'device', role: null, address: source } });
      } catch (err) {
        throw failed(err);
      }
      limiter.recordSuccess(counted);
      const { server, device, peer, replaced, replay } = done;
      const payload = JSON.stringify({ device_id: device.deviceId, ...deviceTunnel(tunnelSource(server, peer)) });
      const encrypted = encryptPayload(payload, deviceKey(device.hwid, salt));
      app.log.info(replay ? 'device provisioning answered again (same token and hwid within the window)' : 'device provisioned',
        { device: deviceIdPrefix(device.deviceId), serverId: server.id, source, reprovisioned: replaced !== null });
      return ok({ encrypted_config: encrypted });
    },
  };
}
