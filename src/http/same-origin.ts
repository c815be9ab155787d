// The CSRF rule for cookie sessions: a request that changes state (or opens the event
// stream) with the session cookie must show it comes from the page's own origin, by
// `Sec-Fetch-Site: same-origin` or by an `Origin` naming the host it was sent to.
import type { IncomingHttpHeaders } from 'node:http';
import { apiError } from '../error-registry';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** True when a cookie-borne request of this method (or a WebSocket upgrade) must pass the origin check. */
export function needsOriginCheck(method: string | undefined, headers: IncomingHttpHeaders): boolean {
  if (String(headers.upgrade ?? '').toLowerCase() === 'websocket') return true;
  return method !== undefined && !SAFE_METHODS.has(method.toUpperCase());
}

export function isSameOrigin(headers: IncomingHttpHeaders): boolean {
  const site = headers['sec-fetch-site'];
  // A browser that says where a request comes from is believed over anything else.
  if (typeof site === 'string') return site === 'same-origin';
  const origin = headers.origin;
  const host = headers.host;
  if (typeof origin !== 'string' || typeof host !== 'string' || host === '') return false;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.host === host.toLowerCase() && origin === url.origin;
}

/** Throws 403 unless the request shows it comes from the page's own origin. */
export function requireSameOrigin(headers: IncomingHttpHeaders): void {
  if (!isSameOrigin(headers)) throw apiError('WGCP_CROSS_SITE', { advice: 'a request with the session cookie must come from this page' });
}
