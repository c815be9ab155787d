// GET /api/events is a WebSocket (src/events/stream.ts answers the upgrade). A plain GET
// reaches the router instead and is told how to connect.
import { apiError } from '../error-registry';
import type { App } from '../app';
import type { Route } from '../http/router';

export function eventStreamRoutes(_app: App): Route[] {
  return [
    {
      method: 'GET', path: '/api/events', auth: 'control', role: 'viewer',
      doc: () => ({
        summary: 'WebSocket stream of events (the webhook envelope as JSON) and usage snapshots. Credentials as for the API, '
          + 'or an access token offered as a Sec-WebSocket-Protocol value (with "wgcp" beside it, which the server then selects). '
          + 'Closed with code 4401 when the key, token or session that opened it ends (revoked, expired, signed out)',
        answers: { 101: { description: 'switching to WebSocket' } }, errors: [[426, 'a plain GET: connect with Upgrade: websocket']],
      }),
      handler() {
        throw apiError('WGCP_WEBSOCKET_REQUIRED', undefined, { headers: { Upgrade: 'websocket' } });
      },
    },
  ];
}
