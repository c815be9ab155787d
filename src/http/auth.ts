// Control-plane credentials: an API key in `wg-control-key`, or an access token in
// `Authorization` (with or without "Bearer "). Either one that matches authorises. Without
// them, the dashboard's session cookie does, under the same-origin rule (same-origin.ts).
import crypto from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import createError from 'http-errors';
import type { Store } from '../store/store';
import { hashSecret } from '../store/credentials';
import { sessionTable } from '../store/sessions';
import { sessionCookieValue } from './session-cookie';
import { needsOriginCheck, requireSameOrigin } from './same-origin';

export function bearerValue(header: string): string {
  return header.replace(/^\s*Bearer\s+/i, '').trim();
}

function equalsConfiguredKey(presented: string, configured: string | null): boolean {
  if (configured === null) return false;
  return crypto.timingSafeEqual(hashSecret(presented), hashSecret(configured));
}

/**
 * Throws 401 unless the request carries a live credential, and 403 when that credential is
 * the session cookie on a state-changing request (or a WebSocket upgrade) from another origin.
 */
export function authenticate(req: Pick<IncomingMessage, 'headers'> & { method?: string }, store: Store, configuredKey: string | null, now: string): void {
  const key = req.headers['wg-control-key'];
  if (typeof key === 'string' && key !== '') {
    if (equalsConfiguredKey(key, configuredKey)) return;
    const id = store.credentials.match('apikey', key, now);
    if (id !== null) return store.credentials.touch(id, now);
  }
  const auth = req.headers.authorization;
  if (typeof auth === 'string' && bearerValue(auth) !== '') {
    const id = store.credentials.match('token', bearerValue(auth), now);
    if (id !== null) return store.credentials.touch(id, now);
  }
  const session = sessionCookieValue(req.headers.cookie);
  if (session !== null && sessionTable(store).use(session, configuredKey, now) !== null) {
    if (needsOriginCheck(req.method, req.headers)) requireSameOrigin(req.headers);
    return;
  }
  throw createError(401, 'unauthorized');
}
