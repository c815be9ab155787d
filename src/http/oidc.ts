// Single sign-on for the page (OpenID Connect, authorization code flow with PKCE): GET
// /api/oidc/login sends the browser to the provider; GET /api/oidc/callback takes it back,
// has the ID token checked (oidc-client.ts), maps its claims to a role (WGCP_OIDC_ROLES)
// and opens a session for the person, or answers a page saying why not.
// What the round trip needs (state, nonce, PKCE verifier) is kept here in memory under the
// hash of a cookie only this browser holds: a callback from another browser (login CSRF),
// a second use of the same callback, or one after ten minutes finds nothing.
import crypto from 'node:crypto';
import type { TLSSocket } from 'node:tls';
import { apiError } from '../error-registry';
import type { App } from '../app';
import type { RequestContext, Route } from './router';
import type { Reply } from './reply';
import type { OidcSettings } from '../access/oidc-settings';
import { roleOfClaims } from '../access/oidc-roles';
import { personName, sha256Hex, type Person } from '../store/sessions';
import { recordSignIn, recordSignInFailure } from '../ops/sign-ins';
import { notePersonSignIn } from '../ops/passkey-sign-in';
import type { OidcClient, PendingSignIn } from './oidc-client';
import type * as OidcClientModule from './oidc-client';
import { SESSION_COOKIE_DOC, sessionSetCookie } from './session-cookie';
import { failedSignInPage, noRolePage } from './oidc-page';

export const PENDING_COOKIE = 'wgcp_oidc';
const PENDING_MS = 10 * 60_000;
const PENDING_MAX = 1000;

function pendingCookieValue(header: string | undefined): string | null {
  for (const part of (header ?? '').split(';')) {
    const [name, value] = part.trim().split('=');
    if (name === PENDING_COOKIE && /^[A-Za-z0-9_-]{43}$/.test(value ?? '')) return value;
  }
  return null;
}

const isTls = (ctx: RequestContext): boolean => (ctx.req.socket as TLSSocket).encrypted === true;

/** The daemon's client (src/services.ts), made (and openid-client imported) at the first sign-in. */
export function lazyOidcClient(settings: OidcSettings | null): () => OidcClient {
  let c: OidcClient | null = null;
  return () => {
    if (settings === null) throw apiError('WGCP_SSO_NOT_SET_UP');
    return (c ??= new (require('./oidc-client') as typeof OidcClientModule).OidcClient(settings));
  };
}

/**
 * What check failed, in words: openid-client's messages are generic ("unexpected JWT claim
 * value"); the claim or parameter it was about is in its `cause`.
 */
function checkFailed(err: unknown): string {
  const e = err as Error & { cause?: unknown };
  if (e.cause instanceof Error) return e.cause.message;
  const body = e.cause as { error?: unknown; error_description?: unknown } | undefined;
  if (typeof body?.error === 'string') return `the provider refused: ${body.error}${typeof body.error_description === 'string' ? ` (${body.error_description})` : ''}`;
  return e.message;
}

export function oidcRoutes(app: App): Route[] {
  // SameSite=Lax: the provider's redirect back is a top-level navigation from its site.
  const pending = new Map<string, PendingSignIn & { until: number }>();
  const settings = (): OidcSettings => {
    if (app.config.oidc === null) throw apiError('WGCP_SSO_NOT_SET_UP');
    return app.config.oidc;
  };

  async function login(ctx: RequestContext): Promise<Reply> {
    const s = settings();
    let started;
    try {
      started = await app.services.oidcClient().start();
    } catch (err) {
      app.log.warn('single sign-on: the provider could not be reached', { issuer: s.issuer, error: (err as Error).message });
      return failedSignInPage(`The sign-in provider (${s.issuer}) could not be reached: ${(err as Error).message}`, 502);
    }
    const now = Date.now();
    for (const [k, v] of pending) if (v.until <= now || pending.size >= PENDING_MAX) pending.delete(k);
    const value = crypto.randomBytes(32).toString('base64url');
    pending.set(sha256Hex(value), { ...started.pending, until: now + PENDING_MS });
    const cookie = `${PENDING_COOKIE}=${value}; Path=/api/oidc/; HttpOnly; SameSite=Lax; Max-Age=${PENDING_MS / 1000}${isTls(ctx) ? '; Secure' : ''}`;
    return { status: 302, headers: { Location: started.url, 'Set-Cookie': cookie, 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' } };
  }

  async function callback(ctx: RequestContext): Promise<Reply> {
    const s = settings();
    const source = ctx.req.socket.remoteAddress ?? null;
    const failed = (reason: string, why: string, status = 400): Reply => {
      recordSignInFailure(app, { kind: 'person', id: null, name: '', role: null, address: source }, 'single sign-on failed', { detail: reason });
      app.log.warn('single sign-on refused', { reason, address: source });
      return failedSignInPage(why, status);
    };
    const value = pendingCookieValue(ctx.req.headers.cookie);
    const key = value === null ? null : sha256Hex(value);
    const started = key === null ? undefined : pending.get(key);
    // Spent at the first answer, good or bad: a callback is never taken twice.
    if (key !== null) pending.delete(key);
    if (!started || started.until <= Date.now()) {
      return failed('no sign-in under way in this browser', `This sign-in was not started from this browser, was used already, or took longer than 10 minutes. Open the page at ${app.config.publicUrl}/ (the address the provider sends you back to) and sign in from there.`);
    }
    const providerError = ctx.query.get('error');
    if (providerError !== null) {
      return failed(`provider answered ${providerError}`, `The sign-in provider refused: ${providerError}${ctx.query.get('error_description') ? ` (${ctx.query.get('error_description')})` : ''}.`, 403);
    }
    let claims;
    try {
      claims = await app.services.oidcClient().finish(ctx.query.toString(), started);
    } catch (err) {
      const why = checkFailed(err);
      return failed(why, `The provider's answer did not pass a check: ${why}.`);
    }
    const email = typeof claims.email === 'string' ? claims.email : null;
    const role = roleOfClaims(s.roles, claims);
    const who = personName({ subject: claims.sub, email });
    // The person's passkeys follow the mapping: its role now, or none (they stop signing in).
    await notePersonSignIn(app, claims.sub, email, role);
    if (role === null) {
      recordSignInFailure(app, { kind: 'person', id: null, name: who, role: null, address: source }, 'no role for this person');
      app.log.warn('single sign-on refused: no rule gives this person a role', { person: who });
      return noRolePage(email ?? claims.sub);
    }
    const person: Person = { subject: claims.sub, email, role };
    recordSignIn(app, { kind: 'person', id: null, name: who, role, address: source }, { subject: claims.sub, email, issuer: s.issuer });
    const session = app.store.sessions.open({ credentialId: null, keyHash: '', expiresAt: null, person }, app.now().toISOString());
    app.log.info('dashboard session opened', { person: who, role });
    // 303 to the page: the session cookie is SameSite=Strict, so the page's own requests carry it.
    return { status: 303, headers: { Location: '../../', 'Set-Cookie': sessionSetCookie(session, isTls(ctx)), 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' } };
  }

  return [
    {
      method: 'GET', path: '/api/oidc/login', auth: 'none', handler: login,
      doc: () => ({
        summary: 'Single sign-on: sends the browser to the provider (authorization code flow with PKCE, state and nonce)',
        answers: {
          302: { description: "to the provider's authorization endpoint; sets the cookie `wgcp_oidc` (HttpOnly, SameSite=Lax, Path=/api/oidc/, 10 minutes) that ties the return to this browser" },
          502: { description: 'the provider could not be reached (an HTML page)', type: 'text/html' },
        },
        errors: [[404, 'single sign-on is not set up (WGCP_OIDC_ISSUER)']],
      }),
    },
    {
      method: 'GET', path: '/api/oidc/callback', auth: 'none', handler: callback,
      doc: () => ({
        summary: "Single sign-on: the provider's redirect back; the ID token is checked and mapped to a role (WGCP_OIDC_ROLES)",
        query: [{ name: 'code', schema: { type: 'string' } }, { name: 'state', schema: { type: 'string' } }, { name: 'iss', schema: { type: 'string' } }],
        answers: {
          303: { description: 'signed in: to the page, with the session cookie', headers: { 'Set-Cookie': SESSION_COOKIE_DOC } },
          400: { description: 'a check failed (state, nonce, signature, audience, expiry, a code used already, a sign-in not started in this browser): an HTML page saying which', type: 'text/html' },
          403: { description: 'no rule of the role mapping gives this person a role, or the provider refused: an HTML page saying so', type: 'text/html' },
        },
        errors: [[404, 'single sign-on is not set up']],
      }),
    },
  ];
}
