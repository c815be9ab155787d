// GET /metrics in the Prometheus text format: on WGCP_LISTEN behind the API's credentials (an
// access token as Authorization: Bearer is what Prometheus sends), and, when
// WGCP_METRICS_LISTEN is set, alone and without credentials on that address (for a scraper
// on a trusted network).
import http from 'node:http';
import { apiError } from '../error-registry';
import type { App } from '../app';
import type { AuthKind, Route } from '../http/router';
import { createRequestHandler } from '../http/server';
import { scraperOf } from '../metrics/scrape';
import { observeRequests } from '../metrics/http-observer';
import { registerOwnListener } from '../net/own-listeners';

export function metricsRoute(app: App, auth: AuthKind): Route {
  const scrape = scraperOf(app);
  const route = {
    method: 'GET', path: '/metrics',
    doc: () => ({
      summary: 'Prometheus metrics (text format 0.0.4). With the API\'s credentials here; without any on WGCP_METRICS_LISTEN when it is set',
      answers: { 200: { description: 'the exposition', type: 'text/plain; version=0.0.4', shape: { type: 'string' } } },
    }),
    async handler() {
      const { contentType, text } = await scrape();
      return { status: 200, raw: text, type: contentType };
    },
  } as const;
  return auth === 'control' ? { ...route, auth, role: 'viewer' } : { ...route, auth };
}

/** The WGCP_METRICS_LISTEN listener: /metrics and nothing else, no credentials. */
export function createMetricsServer(app: App): http.Server {
  const routes = [metricsRoute(app, 'none')];
  const handler = createRequestHandler({
    routes, log: app.log, bodyLimit: 1024,
    authenticate: () => { throw apiError('WGCP_UNAUTHORIZED'); },
  });
  const server = http.createServer({ requestTimeout: 30_000, headersTimeout: 15_000 }, handler);
  registerOwnListener(server);
  observeRequests(server, 'metrics', routes, app.services.metrics);
  return server;
}
