// A flat route table matched segment by segment: `:name` segments capture, the rest match
// literally. Unknown paths are 404; a known path with another method is 405 with Allow.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { apiError } from '../error-registry';
import type { Reply } from './reply';
import type { Actor } from '../store/audit';
import type { Role } from '../store/roles';

export type AuthKind = 'none' | 'control';

export interface RequestContext {
  req: IncomingMessage;
  res: ServerResponse;
  params: Record<string, string>;
  query: URLSearchParams;
  requestId: string;
  /** Who calls: set on every `control` route (after the role check), absent on the others. */
  actor?: Actor;
  body(): Promise<Record<string, unknown>>;
}

/**
 * A shape in a route's documentation: the name of a schema in the document's components (a
 * resource's, `'Webhook'`), `[name]` for a list of them, or a JSON Schema of its own.
 */
export type DocShape = string | [string] | Record<string, unknown>;

/**
 * A route's request and answers, declared where the route is defined: the OpenAPI operation is
 * made from it (api/openapi-routes.ts), its path parameters from the path, `x-wgcp-role` from
 * the role, 401, 403 and 500 for every route with credentials.
 */
export interface RouteDoc {
  summary: string;
  description?: string;
  /** The body it takes; `bodyOptional`: it may be left out. */
  body?: DocShape;
  bodyOptional?: boolean;
  /** Its answers by status: what each means and its shape (none: no body; `type`: other than JSON; `content`: one shape a media type; `headers`: the answer's). */
  answers: Record<number, { description: string; shape?: DocShape; type?: string; content?: Record<string, DocShape>; headers?: Record<string, unknown> }>;
  /** The errors it may answer beyond 401, 403 and 500: a status (its standard text) or [status, what it means here]. */
  errors?: (number | [number, string])[];
  /** Query parameters (or a header, `in: 'header'`). */
  query?: { name: string; in?: 'query' | 'header'; schema: Record<string, unknown>; description?: string }[];
  /** The schema of its error answers, when not the API's `Error` (the device contract's `DeviceError`). */
  errorShape?: string;
  /** Path parameters' descriptions and schemas, by name (default: a string). */
  params?: Record<string, { description?: string; schema?: Record<string, unknown> }>;
}

interface RouteShape {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  /** Largest accepted request body; the listener's default when absent. */
  bodyLimit?: number;
  /**
   * Its request and answer shapes, from which its OpenAPI operation is made; absent: still
   * written in api/openapi-*.ts. A function, called when the document is first asked for: the
   * shapes cost the daemon nothing until then (V8 compiles the function at its first call).
   */
  doc?: () => RouteDoc;
  handler(ctx: RequestContext): Reply | Promise<Reply>;
}

/** A route with credentials declares, where it is defined, the least role it needs: the router refuses a caller below it, the OpenAPI document shows it as `x-wgcp-role`. */
export type Route = RouteShape & ({ auth: 'none'; role?: undefined } | { auth: 'control'; role: Role });

export interface Match { route: Route; params: Record<string, string> }

// Per route table, once: each pattern split into segments, and the matches of the literal
// paths (no `:name` segment) by "METHOD /path", so that a request naming one exactly (the
// device heartbeat, for one) skips the segment walk with the same result.
interface Compiled { parts: string[][]; exact: Map<string, Match> }
// A cache of per-object data, not a service: it lives as long as the route table.
const compiled = new WeakMap<readonly Route[], Compiled>();

function compile(routes: readonly Route[]): Compiled {
  let c = compiled.get(routes);
  if (!c) {
    c = { parts: routes.map((r) => r.path.split('/').filter(Boolean)), exact: new Map() };
    compiled.set(routes, c);
    for (let i = 0; i < routes.length; i++) {
      const r = routes[i];
      if (r.path.includes(':') || r.path.includes('%')) continue;
      for (const method of r.method === 'GET' ? ['GET', 'HEAD'] : [r.method]) {
        c.exact.set(`${method} ${r.path}`, walkRoutes(routes, c.parts, method, c.parts[i]));
      }
    }
  }
  return c;
}

function matchPath(parts: string[], segments: string[]): Record<string, string> | null {
  if (parts.length !== segments.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < parts.length; i++) {
    if (parts[i].startsWith(':')) params[parts[i].slice(1)] = segments[i];
    else if (parts[i] !== segments[i]) return null;
  }
  return params;
}

function walkRoutes(routes: readonly Route[], parts: string[][], method: string, segments: string[]): Match {
  const allowed = new Set<string>();
  for (let i = 0; i < routes.length; i++) {
    const route = routes[i];
    const params = matchPath(parts[i], segments);
    if (!params) continue;
    if (route.method === method || (method === 'HEAD' && route.method === 'GET')) return { route, params };
    allowed.add(route.method);
  }
  if (allowed.size === 0) throw apiError('WGCP_ROUTE_NOT_FOUND');
  throw apiError('WGCP_METHOD_NOT_ALLOWED', undefined, { headers: { Allow: [...allowed].sort().join(', ') } });
}

export function findRoute(routes: readonly Route[], method: string, pathname: string): Match {
  const c = compile(routes);
  const exact = c.exact.get(`${method} ${pathname}`);
  // A copy of the stored params: handlers own what they are handed.
  if (exact) return { route: exact.route, params: { ...exact.params } };
  let segments: string[];
  try {
    segments = pathname.split('/').filter(Boolean).map((s) => decodeURIComponent(s));
  } catch {
    throw apiError('WGCP_ROUTE_NOT_FOUND');
  }
  return walkRoutes(routes, c.parts, method, segments);
}
