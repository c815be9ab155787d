// The one place where a thrown error becomes a JSON body: `{"error": text, "code": code}`, plus
// `field` and `role` when the error names them. A registered error (src/error-registry.ts)
// brings its code; any other HTTP error gets the generic code of its status; anything
// unexpected is a generic 500, logged.
import type { ServerResponse } from 'node:http';
import { isHttpError } from 'http-errors';
import { ERRORS, genericCode, isErrorCode } from '../error-registry';
import type { Logger } from '../log';
import { JSON_TYPE } from './reply';

export interface ErrorBody { status: number; body: Record<string, string>; headers: Record<string, string> }

export function errorToBody(err: unknown): ErrorBody {
  if (isHttpError(err)) {
    const code = (err as { code?: unknown }).code;
    const body: Record<string, string> = { error: err.message, code: isErrorCode(code) ? code : genericCode(err.status) };
    const headers: Record<string, string> = {};
    // A client error says what was wrong; a server-side error raised on purpose (a failed
    // kernel apply) keeps its text only.
    if (err.expose) {
      // `field` names a bad field of the request, `role` the role a 403 needed, `primary` where a standby's writes go.
      for (const name of ['field', 'role', 'primary'] as const) {
        const v = (err as { [k: string]: unknown })[name];
        if (typeof v === 'string') body[name] = v;
      }
      // Every bad field of a body (error-registry.ts: FieldErrors), each as errors.<field>: the body stays a map of strings.
      const all = (err as { fieldErrors?: unknown }).fieldErrors;
      if (all && typeof all === 'object') for (const [f, m] of Object.entries(all)) if (typeof m === 'string') body[`errors.${f}`] = m;
      const h = (err as { headers?: Record<string, string> }).headers;
      if (h) Object.assign(headers, h);
    }
    return { status: err.status, body, headers };
  }
  return { status: 500, body: { error: ERRORS.WGCP_INTERNAL.message, code: 'WGCP_INTERNAL' }, headers: {} };
}

export function sendError(res: ServerResponse, err: unknown, requestId: string, log: Logger): void {
  const { status, body, headers } = errorToBody(err);
  if (status >= 500) {
    log.error('request failed', { requestId, status, error: err instanceof Error ? err.message : String(err), stack: err instanceof Error ? err.stack : undefined });
  }
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, { ...headers, 'Content-Type': JSON_TYPE, 'Content-Length': Buffer.byteLength(text), 'X-Request-Id': requestId });
  res.end(text);
}
