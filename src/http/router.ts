// A flat route table matched segment by segment: `:name` segments capture, the rest match
// literally. Unknown paths are 404; a known path with another method is 405 with Allow.
import type { IncomingMessage, ServerResponse } from 'node:http';
import createError from 'http-errors';
import type { Reply } from './reply';

export type AuthKind = 'none' | 'control';

export interface RequestContext {
  req: IncomingMessage;
  res: ServerResponse;
  params: Record<string, string>;
  query: URLSearchParams;
  requestId: string;
  body(): Promise<Record<string, unknown>>;
}

export interface Route {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  auth: AuthKind;
  /** Largest accepted request body; the listener's default when absent. */
  bodyLimit?: number;
  handler(ctx: RequestContext): Reply | Promise<Reply>;
}

export interface Match { route: Route; params: Record<string, string> }

// Patterns are split once per route table, not on every request.
const compiled = new WeakMap<readonly Route[], string[][]>();

function partsOf(routes: readonly Route[]): string[][] {
  let parts = compiled.get(routes);
  if (!parts) {
    parts = routes.map((r) => r.path.split('/').filter(Boolean));
    compiled.set(routes, parts);
  }
  return parts;
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

export function findRoute(routes: readonly Route[], method: string, pathname: string): Match {
  let segments: string[];
  try {
    segments = pathname.split('/').filter(Boolean).map((s) => decodeURIComponent(s));
  } catch {
    throw createError(404, 'not found');
  }
  const allowed = new Set<string>();
  const parts = partsOf(routes);
  for (let i = 0; i < routes.length; i++) {
    const route = routes[i];
    const params = matchPath(parts[i], segments);
    if (!params) continue;
    if (route.method === method || (method === 'HEAD' && route.method === 'GET')) return { route, params };
    allowed.add(route.method);
  }
  if (allowed.size === 0) throw createError(404, 'not found');
  throw createError(405, 'method not allowed', { headers: { Allow: [...allowed].sort().join(', ') } });
}
