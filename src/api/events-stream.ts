// GET /api/events is a WebSocket (src/events/stream.ts answers the upgrade). A plain GET
// reaches the router instead and is told how to connect.
import createError from 'http-errors';
import type { App } from '../app';
import type { Route } from '../http/router';

export function eventStreamRoutes(_app: App): Route[] {
  return [
    {
      method: 'GET', path: '/api/events', auth: 'control',
      handler() {
        throw createError(426, 'this is a WebSocket endpoint: connect with "Upgrade: websocket"', { headers: { Upgrade: 'websocket' } });
      },
    },
  ];
}
