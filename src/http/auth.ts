// Control-plane credentials: an API key in `wg-control-key`, or an access token in
// `Authorization` (with or without "Bearer "). Either one that matches authorises. Without
// them, the dashboard's session cookie does, under the same-origin rule (same-origin.ts).
// What matched becomes the request's Actor: who calls, with which role, from where.
import crypto from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { apiError } from '../error-registry';
import type { Store } from '../store/store';
import { hashSecret } from '../store/credentials';
import { personName, type LiveSession } from '../store/sessions';
import type { Actor } from '../store/audit';
import { roleAllows, type Role } from '../store/roles';
import { sessionCookieValue } from './session-cookie';
import { needsOriginCheck, requireSameOrigin } from './same-origin';

export type { Actor, ActorKind } from '../store/audit';
export type { Role } from '../store/roles';

/** The name WGCP_API_KEY (the environment's key, always admin) goes by in the audit log. */
export const CONFIGURED_KEY_NAME = 'WGCP_API_KEY';

export function bearerValue(header: string): string {
  return header.replace(/^\s*Bearer\s+/i, '').trim();
}

export function equalsConfiguredKey(presented: string, configured: string | null): boolean {
  if (configured === null) return false;
  return crypto.timingSafeEqual(hashSecret(presented), hashSecret(configured));
}

type AuthRequest = Pick<IncomingMessage, 'headers'> & { method?: string; socket?: { remoteAddress?: string } };

/** The actor of a page session: a person's (single sign-on), or the role and name of the key or token it was opened with, now. */
function sessionActor(store: Store, live: LiveSession, address: string | null): Actor | null {
  const { credentialId, person } = live;
  if (person !== null) return { kind: 'person', id: null, name: personName(person), role: person.role, address, person: { subject: person.subject, email: person.email } };
  if (credentialId === null) return { kind: 'page', id: null, name: CONFIGURED_KEY_NAME, role: 'admin', address, credentialKind: 'apikey' };
  const c = store.credentials.get(credentialId);
  return c === null ? null : { kind: 'page', id: c.id, name: c.name, role: c.role, address, credentialKind: c.kind };
}

/**
 * What a request was let in with, for what stays open after it (the live stream): the
 * configured key, a stored key or token, or a page session (and the credential it was opened with).
 */
export type HeldCredential =
  | { kind: 'configured' }
  | { kind: 'stored'; credentialId: number }
  | { kind: 'session'; value: string; credentialId: number | null };

/**
 * The caller, or 401 unless the request carries a live credential; 403 when that credential
 * is the session cookie on a state-changing request (or a WebSocket upgrade) from another origin.
 */
export function authenticate(req: AuthRequest, store: Store, configuredKey: string | null, now: string): Actor {
  return authenticateHeld(req, store, configuredKey, now).actor;
}

/** As authenticate, also saying which credential let the request in. */
export function authenticateHeld(req: AuthRequest, store: Store, configuredKey: string | null, now: string): { actor: Actor; held: HeldCredential } {
  const address = req.socket?.remoteAddress ?? null;
  const key = req.headers['wg-control-key'];
  if (typeof key === 'string' && key !== '') {
    if (equalsConfiguredKey(key, configuredKey)) return { actor: { kind: 'apikey', id: null, name: CONFIGURED_KEY_NAME, role: 'admin', address, credentialKind: 'apikey' }, held: { kind: 'configured' } };
    const c = store.credentials.match('apikey', key, now);
    if (c !== null) {
      store.credentials.touch(c.id, now);
      return { actor: { kind: 'apikey', id: c.id, name: c.name, role: c.role, address, credentialKind: 'apikey' }, held: { kind: 'stored', credentialId: c.id } };
    }
  }
  const auth = req.headers.authorization;
  if (typeof auth === 'string' && bearerValue(auth) !== '') {
    const c = store.credentials.match('token', bearerValue(auth), now);
    if (c !== null) {
      store.credentials.touch(c.id, now);
      return { actor: { kind: 'token', id: c.id, name: c.name, role: c.role, address, credentialKind: 'token' }, held: { kind: 'stored', credentialId: c.id } };
    }
  }
  const session = sessionCookieValue(req.headers.cookie);
  const live = session === null ? null : store.sessions.use(session, configuredKey, now);
  const actor = live === null ? null : sessionActor(store, live, address);
  if (actor !== null) {
    if (needsOriginCheck(req.method, req.headers)) requireSameOrigin(req.headers);
    return { actor, held: { kind: 'session', value: session!, credentialId: live!.credentialId } };
  }
  throw apiError('WGCP_UNAUTHORIZED');
}

/**
 * Whether what let a request in still would: the key or token not revoked nor expired, the
 * session not signed out nor ended. Looks only; counts as no use.
 */
export function stillHeld(held: HeldCredential, store: Store, configuredKey: string | null, now: string): boolean {
  if (held.kind === 'configured') return configuredKey !== null;
  if (held.kind === 'session' && !store.sessions.isLive(held.value, configuredKey, now)) return false;
  if (held.credentialId === null) return true;
  const c = store.credentials.get(held.credentialId);
  return c !== null && (c.expiresAt === null || c.expiresAt > now);
}

/** 403 naming the role needed, unless the actor's role allows it. */
export function requireRole(actor: Actor, need: Role): void {
  if (actor.role === null || !roleAllows(actor.role, need)) {
    throw apiError('WGCP_FORBIDDEN_ROLE', { role: need }, { role: need });
  }
}
