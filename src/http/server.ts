// The request handler shared by every listener: find the route, check credentials, run
// the handler, and write its reply or its error. Nothing a handler throws escapes.
import crypto from 'node:crypto';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Logger } from '../log';
import { findRoute, type Route, type RequestContext } from './router';
import { DEVICE_BODY_LIMIT, PUBLIC_BODY_LIMIT, readJsonBody } from './body';
import { sendError } from './errors';
import { JSON_TYPE, type Reply } from './reply';
import { requireRole, type Actor } from './auth';

export interface HandlerOptions {
  routes: readonly Route[];
  log: Logger;
  bodyLimit: number;
  /** The caller of a `control` route, or a thrown 401/403. */
  authenticate(req: IncomingMessage): Actor;
  /** One debug line per request; off unless the log level is debug (it costs on hot paths). */
  logRequests?: boolean;
}

// Request ids: a random per-process prefix and a counter, unique enough to match a
// response to its log line without drawing random bytes on every request.
const ID_PREFIX = crypto.randomBytes(3).toString('hex');
let idCounter = 0;

function nextRequestId(): string {
  idCounter = (idCounter + 1) % 0x1000000;
  return ID_PREFIX + idCounter.toString(16).padStart(6, '0');
}

/** Splits a request target into path and query without building a whole URL object. */
export function splitTarget(target: string): { pathname: string; query: URLSearchParams } {
  const q = target.indexOf('?');
  return q < 0 ? { pathname: target, query: new URLSearchParams() } : { pathname: target.slice(0, q), query: new URLSearchParams(target.slice(q + 1)) };
}

function send(req: IncomingMessage, res: ServerResponse, reply: Reply, requestId: string): void {
  const headers: Record<string, string | number> = { ...reply.headers, 'X-Request-Id': requestId };
  let payload: Buffer | string | undefined;
  if (reply.json !== undefined) {
    payload = JSON.stringify(reply.json);
    headers['Content-Type'] = JSON_TYPE;
  } else if (reply.raw !== undefined) {
    payload = reply.raw;
    headers['Content-Type'] = reply.type ?? 'application/octet-stream';
  }
  if (payload !== undefined) headers['Content-Length'] = Buffer.byteLength(payload);
  res.writeHead(reply.status, headers);
  res.end(req.method === 'HEAD' ? undefined : payload);
}

/**
 * The body a route takes. A route without credentials takes PUBLIC_BODY_LIMIT unless it says
 * less or (the device API) up to DEVICE_BODY_LIMIT: anyone can send it, before any check.
 */
export function bodyLimitOf(route: Route, listenerLimit: number): number {
  if (route.auth === 'control') return route.bodyLimit ?? listenerLimit;
  const limit = route.bodyLimit ?? Math.min(listenerLimit, PUBLIC_BODY_LIMIT);
  if (limit > DEVICE_BODY_LIMIT) throw new Error(`route ${route.method} ${route.path} takes no credentials but asks for a ${limit}-byte body (at most ${DEVICE_BODY_LIMIT})`);
  return limit;
}

export function createRequestHandler(opts: HandlerOptions): RequestListener {
  // Checked once, at start: a table that would let anyone post a large body does not start.
  for (const route of opts.routes) bodyLimitOf(route, opts.bodyLimit);
  return (req, res) => {
    const requestId = nextRequestId();
    let routePath = '(none)';
    if (opts.logRequests) {
      const started = process.hrtime.bigint();
      res.on('finish', () => {
        // The route pattern, not the raw path: a path may carry a registration token.
        opts.log.debug('request', { requestId, method: req.method, route: routePath, status: res.statusCode, ms: Number(process.hrtime.bigint() - started) / 1e6 });
      });
    }
    (async () => {
      const { pathname, query } = splitTarget(req.url ?? '/');
      const { route, params } = findRoute(opts.routes, req.method ?? 'GET', pathname);
      routePath = route.path;
      let actor: Actor | undefined;
      if (route.auth === 'control') {
        actor = opts.authenticate(req);
        // Every control route declares its role (the type requires it); one that somehow has none is admin's: fails closed.
        requireRole(actor, route.role ?? 'admin');
      }
      const ctx: RequestContext = { req, res, params, query, requestId, actor, body: () => readJsonBody(req, bodyLimitOf(route, opts.bodyLimit)) };
      const reply = await route.handler(ctx);
      if (!res.headersSent && !res.writableEnded) send(req, res, reply, requestId);
    })().catch((err) => sendError(res, err, requestId, opts.log));
  };
}
