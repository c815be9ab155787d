// The device contract's two routes. Both listeners serve them: WGCP_LISTEN beside the
// control plane, and WGCP_DEVICE_LISTEN alone. Each handler draws its request buckets
// where src/device/admission.ts says: its source's first, the device's and the fleet's
// after the cheap checks (the contract shows no rate limit; docs/device-api.md).
import type { App } from '../app';
import type { Route } from '../http/router';
import { heartbeatRoute } from './heartbeat';
import { provisionRoute } from './provision';
import { siteJoinRoute } from './site-join';

export function deviceApiRoutes(app: App): Route[] {
  return [provisionRoute(app), heartbeatRoute(app), siteJoinRoute(app)];
}
