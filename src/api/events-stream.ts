// GET /api/events is a WebSocket (src/events/stream.ts answers the upgrade). A plain GET
// reaches the router instead and is told how to connect.
import { apiError } from '../error-registry';
import type { App } from '../app';
import type { Route } from '../http/router';

export function eventStreamRoutes(_app: App): Route[] {
  return [
    {
      method: 'GET', path: '/api/events', auth: 'control', role: 'viewer',
      handler() {
        throw apiError('WGCP_WEBSOCKET_REQUIRED', undefined, { headers: { Upgrade: 'websocket' } });
      },
    },
  ];
}
