// Control-plane credentials: an API key in `wg-control-key`, or an access token in
// `Authorization` (with or without "Bearer "). Either one that matches authorises.
import crypto from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import createError from 'http-errors';
import type { Store } from '../store/store';
import { hashSecret } from '../store/credentials';

export function bearerValue(header: string): string {
  return header.replace(/^\s*Bearer\s+/i, '').trim();
}

function equalsConfiguredKey(presented: string, configured: string | null): boolean {
  if (configured === null) return false;
  return crypto.timingSafeEqual(hashSecret(presented), hashSecret(configured));
}

/** Throws 401 unless the request carries a live credential. */
export function authenticate(req: Pick<IncomingMessage, 'headers'>, store: Store, configuredKey: string | null, now: string): void {
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
  throw createError(401, 'unauthorized');
}
