// The device contract's two routes. Both listeners serve them: WGCP_LISTEN beside the
// control plane, and WGCP_DEVICE_LISTEN alone. Past the device request bucket both answer
// 429 with Retry-After before any work (the contract shows no rate limit; docs/device-api.md).
import createError from 'http-errors';
import type { App } from '../app';
import type { Route } from '../http/router';
import { deviceContext } from '../device/context';
import { DEVICE_REQUEST_COST } from '../device/request-bucket';
import { heartbeatRoute } from './heartbeat';
import { provisionRoute } from './provision';

function limited(app: App, route: Route, cost: number): Route {
  return {
    ...route,
    handler(ctx) {
      const taken = deviceContext(app).bucket?.take(cost) ?? { ok: true };
      if (!taken.ok) throw createError(429, 'too many device requests; try again later', { headers: { 'Retry-After': String(taken.retryAfterS) } });
      return route.handler(ctx);
    },
  };
}

export function deviceApiRoutes(app: App): Route[] {
  return [limited(app, provisionRoute(app), DEVICE_REQUEST_COST.provision), limited(app, heartbeatRoute(app), DEVICE_REQUEST_COST.heartbeat)];
}
