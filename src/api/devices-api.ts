// The device contract's two routes. Both listeners serve them: WGCP_LISTEN beside the
// control plane, and WGCP_DEVICE_LISTEN alone.
import type { App } from '../app';
import type { Route } from '../http/router';
import { heartbeatRoute } from './heartbeat';
import { provisionRoute } from './provision';

export function deviceApiRoutes(app: App): Route[] {
  return [provisionRoute(app), heartbeatRoute(app)];
}
