// The OpenAPI operations of the routes that declare their shapes where they are defined
// (`doc` on the route, src/http/router.ts): the path's parameters, the body, the answers and
// the errors, the role. Loaded with the document, at its first request.
import type { DocShape, Route, RouteDoc } from '../http/router';

const json = (schema: object) => ({ content: { 'application/json': { schema } } });

/** The standard text of an error status; a route says more where it means more. */
export const ERROR_TEXT: Record<number, string> = {
  400: 'invalid request; `field` names the bad field (a body nested deeper than 32 levels is 400 too)', 401: 'missing or wrong credentials',
  403: 'the role of the credentials is below the one this route needs (`role` names it)',
  404: 'not found', 409: 'the change conflicts with what is stored', 413: 'body larger than 1 MiB', 500: 'service failure',
};

/** A shape as a JSON Schema: a component's name as a $ref, `[name]` as an array of them. */
export function schemaOf(shape: DocShape): Record<string, unknown> {
  if (typeof shape === 'string') return { $ref: `#/components/schemas/${shape}` };
  if (Array.isArray(shape)) return { type: 'array', items: { $ref: `#/components/schemas/${shape[0]}` } };
  return shape;
}

/** `/api/webhooks/:id` as OpenAPI writes it: `/api/webhooks/{id}`. */
export const openApiPath = (path: string): string => path.replace(/:(\w+)/g, '{$1}');

function operationOf(route: Route, doc: RouteDoc): Record<string, unknown> {
  const params = [...route.path.matchAll(/:(\w+)/g)].map((m) => ({
    name: m[1], in: 'path', required: true, schema: doc.params?.[m[1]]?.schema ?? { type: 'string' },
    ...(doc.params?.[m[1]]?.description ? { description: doc.params[m[1]].description } : {}),
  }));
  const query = (doc.query ?? []).map(({ in: where, name, ...q }) => ({ name, in: where ?? 'query', ...q }));
  const responses: Record<string, unknown> = {};
  for (const [status, a] of Object.entries(doc.answers)) {
    const content = a.content ? Object.fromEntries(Object.entries(a.content).map(([t, sh]) => [t, { schema: schemaOf(sh) }]))
      : a.shape ? { [a.type ?? 'application/json']: { schema: schemaOf(a.shape) } } : a.type ? { [a.type]: {} } : undefined;
    responses[status] = { description: a.description, ...(a.headers ? { headers: a.headers } : {}), ...(content ? { content } : {}) };
  }
  const errors = [...(route.auth === 'control' ? [401, 403] : []), ...(doc.errors ?? []), ...(route.auth === 'control' ? [500] : [])];
  for (const e of errors) {
    const [status, text] = typeof e === 'number' ? [e, ERROR_TEXT[e]] : e;
    responses[String(status)] = { description: text, ...json({ $ref: `#/components/schemas/${doc.errorShape ?? 'Error'}` }) };
  }
  return {
    summary: doc.summary,
    ...(doc.description ? { description: doc.description } : {}),
    ...(route.auth === 'none' ? { security: [] } : { 'x-wgcp-role': route.role }),
    ...(params.length + query.length > 0 ? { parameters: [...params, ...query] } : {}),
    ...(doc.body ? { requestBody: { required: !doc.bodyOptional, ...json(schemaOf(doc.body)) } } : {}),
    responses,
  };
}

/**
 * Adds the operation of every route with a `doc` to `paths`. A route documented both ways
 * is refused: its shapes are said once.
 */
export function addRouteOperations(paths: Record<string, Record<string, unknown>>, routes: readonly Route[]): void {
  for (const route of routes) {
    if (!route.doc) continue;
    const p = openApiPath(route.path);
    const method = route.method.toLowerCase();
    const item = (paths[p] ??= {});
    if (item[method]) throw new Error(`${route.method} ${route.path} is documented in api/openapi-*.ts and on its route: say it once`);
    item[method] = operationOf(route, route.doc());
  }
}
