// Counts a listener's requests as they finish: wgcp_http_requests_total by route pattern (never
// the raw path, which may carry a registration token) and status class, and the device API's
// heartbeats and provisions by result. A second 'request' listener on the server: the
// handler itself is not touched, and the route is matched again only once the answer is out.
import type http from 'node:http';
import { findRoute, type Route } from '../http/router';
import { splitTarget } from '../http/server';
import type { MetricsTally } from './tally';

export type ListenerName = 'api' | 'device' | 'metrics';

const HEARTBEAT = '/api/v1/heartbeat';
const PROVISION = '/api/v1/provision';

function routeOf(routes: readonly Route[], method: string, target: string): string {
  try {
    return findRoute(routes, method, splitTarget(target).pathname).route.path;
  } catch {
    return 'unmatched';
  }
}

export function heartbeatResult(status: number): string {
  return status < 300 ? 'ok' : status < 500 ? 'rejected' : 'error';
}

export function provisionResult(status: number): string {
  if (status < 300) return 'provisioned';
  if (status === 429) return 'limited';
  return status < 500 ? 'rejected' : 'error';
}

export function observeRequests(server: http.Server, listener: ListenerName, routes: readonly Route[], tally: MetricsTally): void {
  server.prependListener('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    res.once('finish', () => {
      const method = req.method ?? 'GET';
      const route = routeOf(routes, method, req.url ?? '/');
      const status = res.statusCode;
      tally.httpRequests.inc([listener, method, route, `${Math.floor(status / 100)}xx`]);
      if (route === HEARTBEAT && method === 'POST') tally.heartbeats.inc([heartbeatResult(status)]);
      else if (route === PROVISION && method === 'POST') tally.provisions.inc([provisionResult(status)]);
    });
  });
}
