// For POSTs whose body is optional: no body at all (or an empty one) reads as {}.
import type { RequestContext } from '../http/router';

export function optionalBody(ctx: RequestContext): Promise<Record<string, unknown>> {
  const h = ctx.req.headers;
  if (h['transfer-encoding'] === undefined && (h['content-length'] === undefined || h['content-length'] === '0')) return Promise.resolve({});
  return ctx.body();
}
