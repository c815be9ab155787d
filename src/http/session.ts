// /api/session: the dashboard signs in with an API key or access token and gets a session
// cookie (store/sessions.ts keeps it hashed); GET tells whether the cookie is live; DELETE
// signs out. Failed sign-ins are limited per source address and per credential
// (sign-in-limiter.ts: a success forgives only its own credential's failures).
import crypto from 'node:crypto';
import type { TLSSocket } from 'node:tls';
import { apiError, fieldError } from '../error-registry';
import type { App } from '../app';
import type { RequestContext, Route } from './router';
import type { Reply } from './reply';
import { ok } from './reply';
import { CONFIGURED_KEY_NAME, bearerValue, type Actor } from './auth';
import { needsSecondFactor, spendSecondFactor, totpStatus } from '../ops/totp';
import { recordSignIn, recordSignInFailure } from '../ops/sign-ins';
import { hasPasskeys } from '../ops/passkey-sign-in';
import type { Role } from '../store/roles';
import { hashSecret } from '../store/credentials';
import { personName, sha256Hex, type SessionGrant } from '../store/sessions';
import { limiterKey } from '../device/failure-limiter';
import type { SignInLimit } from './sign-in-limiter';
import { isSameOrigin } from './same-origin';
import { SESSION_COOKIE_DOC, sessionClearCookie, sessionCookieValue, sessionSetCookie } from './session-cookie';

/** Failed sign-ins allowed per source address, and wrong codes per credential, in a window; past it, 429 until the window ends. */
export const SIGN_IN_LIMIT: SignInLimit = { failures: 10, windowMs: 5 * 60_000, maxAddresses: 10_000 };

const tooMany = (wait: number) => apiError('WGCP_SIGN_IN_THROTTLED', { wait }, { headers: { 'Retry-After': String(wait) } });

const isTls = (ctx: RequestContext): boolean => (ctx.req.socket as TLSSocket).encrypted === true;
const NO_STORE = { 'Cache-Control': 'no-store' };

export interface Grant extends SessionGrant { name: string; role: Role }

/** The grant a presented key or token gives, or null when it is none of the live ones. */
export function grantOf(app: App, presented: string, now: string): Grant | null {
  const { store, config } = app;
  const keyHash = sha256Hex(presented);
  if (config.apiKey !== null && crypto.timingSafeEqual(hashSecret(presented), hashSecret(config.apiKey))) {
    return { credentialId: null, keyHash, expiresAt: null, name: CONFIGURED_KEY_NAME, role: 'admin' };
  }
  const c = store.credentials.match('apikey', presented, now) ?? store.credentials.match('token', presented, now);
  return c === null ? null : { credentialId: c.id, keyHash, expiresAt: c.expiresAt, name: c.name, role: c.role };
}

function readCode(body: Record<string, unknown>): string | null {
  const v = body.code;
  if (v === undefined || v === null || v === '') return null;
  if (typeof v !== 'string' || v.length > 32) throw fieldError('code', 'must be a string of at most 32 characters');
  return v;
}

export function readKey(body: Record<string, unknown>): string {
  const v = body.key;
  if (v === undefined || v === null || v === '') throw fieldError('key', 'is required');
  if (typeof v !== 'string') throw fieldError('key', 'must be a string');
  if (v.length > 512) throw fieldError('key', 'must be at most 512 characters');
  return bearerValue(v);
}

/** A browser that says the sign-in comes from another site is refused: no login CSRF. */
export function refuseForeignSignIn(ctx: RequestContext): void {
  const h = ctx.req.headers;
  if ((h.origin !== undefined || h['sec-fetch-site'] !== undefined) && !isSameOrigin(h)) {
    throw apiError('WGCP_CROSS_SITE', { advice: 'sign in from this page' });
  }
}


/** Opens a page session for a sign-in that passed every check, audited (`summary`: what the row adds). */
export function openPageSession(app: App, ctx: RequestContext, grant: Grant, actor: Actor, summary?: Record<string, unknown>): Reply {
  const now = app.now().toISOString();
  app.services.signIns.recordSuccess(limiterKey(ctx.req.socket.remoteAddress ?? ''), grant.credentialId);
  recordSignIn(app, actor, summary);
  if (grant.credentialId !== null) app.store.credentials.touch(grant.credentialId, now);
  const value = app.store.sessions.open(grant, now);
  app.log.info('dashboard session opened', grant.person ? { person: actor.name, role: grant.role } : { credentialID: grant.credentialId ?? 'WGCP_API_KEY' });
  return { status: 204, headers: { ...NO_STORE, 'Set-Cookie': sessionSetCookie(value, isTls(ctx)) } };
}


/** GET /api/session's answer (the page's SessionState is held to it). */
const SESSION_STATE = () => ({
  type: 'object',
  properties: {
    signedIn: { type: 'boolean' },
    createdAt: { type: 'string', format: 'date-time' },
    expiresAt: { type: 'string', format: 'date-time', description: 'absolute end of the session' },
    idleExpiresAt: { type: 'string', format: 'date-time', description: 'end of the session if it stays unused' },
    role: { enum: ['admin', 'operator', 'viewer'], description: 'the role of the key or token the session was opened with, now; a person: the role the mapping gave at sign-in' },
    name: { type: 'string' }, kind: { enum: ['apikey', 'token', 'person'], description: 'person: signed in by single sign-on' },
    subject: { type: ['string', 'null'], description: "a person's subject at the provider" }, email: { type: ['string', 'null'] },
    singleSignOn: { type: 'boolean', description: 'whether the page offers single sign-on (GET /api/oidc/login)' },
    keySignIn: { type: 'boolean', description: 'whether the page takes a key or token (WGCP_PAGE_KEY_SIGN_IN)' },
    credentialID: { type: ['integer', 'null'], description: 'null: the WGCP_API_KEY of the environment' },
    twoFactor: { type: ['boolean', 'null'], description: 'whether two-factor sign-in is on for it (null: not available)' },
  },
});

export function sessionRoutes(app: App): Route[] {
  const limiter = app.services.signIns;
  const sessions = () => app.store.sessions;

  async function signIn(ctx: RequestContext): Promise<Reply> {
    refuseForeignSignIn(ctx);
    if (!app.config.pageKeySignIn) {
      recordSignInFailure(app, { kind: 'page', id: null, name: '', role: null, address: ctx.req.socket.remoteAddress ?? null }, 'key sign-in off for the page');
      throw apiError('WGCP_KEY_SIGN_IN_OFF');
    }
    const address = limiterKey(ctx.req.socket.remoteAddress ?? '');
    const wait = limiter.addressBlockedFor(address);
    if (wait > 0) throw tooMany(wait);
    const body = await ctx.body();
    const presented = readKey(body);
    const code = readCode(body);
    const now = app.now().toISOString();
    const source = ctx.req.socket.remoteAddress ?? null;
    const grant = grantOf(app, presented, now);
    if (grant === null) {
      limiter.recordFailure(address, null);
      recordSignInFailure(app, { kind: 'page', id: null, name: '', role: null, address: source }, 'unknown key');
      app.log.warn('dashboard sign-in refused', { address: ctx.req.socket.remoteAddress });
      throw apiError('WGCP_UNAUTHORIZED', undefined, { field: 'key' });
    }
    const actor: Actor = { kind: 'page', id: grant.credentialId, name: grant.name, role: grant.role, address: source };
    // A key with two-factor sign-in opens a session only with a code: missing, the page asks
    // for one (the key was right, so no failure counts); wrong or used, it is a failure.
    // A key with passkeys but no TOTP: the page signs in at /api/session/passkey instead.
    const totp = needsSecondFactor(app.store, grant.credentialId);
    if (!totp && hasPasskeys(app, grant.credentialId)) {
      recordSignInFailure(app, actor, 'passkey missing');
      throw apiError('WGCP_PASSKEY_REQUIRED', undefined, { field: 'passkey' });
    }
    if (totp) {
      if (code === null) {
        recordSignInFailure(app, actor, 'two-factor code missing');
        throw apiError('WGCP_TOTP_CODE_REQUIRED', undefined, { field: 'code' });
      }
      // Codes of a key that has had too many wrong ones are not tried, from any address.
      const credentialWait = limiter.credentialBlockedFor(grant.credentialId);
      if (credentialWait > 0) throw tooMany(credentialWait);
      if (!spendSecondFactor(app.store, grant.credentialId!, code, app.now())) {
        limiter.recordFailure(address, grant.credentialId);
        recordSignInFailure(app, actor, 'wrong two-factor code');
        app.log.warn('dashboard sign-in refused: wrong two-factor code', { address: ctx.req.socket.remoteAddress });
        throw apiError('WGCP_TOTP_CODE_WRONG', undefined, { field: 'code' });
      }
    }
    return openPageSession(app, ctx, grant, actor);
  }

  return [
    {
      method: 'POST', path: '/api/session', auth: 'none', handler: signIn,
      doc: () => ({
        summary: 'Sign in to the dashboard: a session cookie for an API key or access token',
        body: { type: 'object', required: ['key'], properties: { key: { type: 'string' }, code: { type: 'string', description: 'the two-factor code (or a recovery code), when the key has two-factor sign-in on' } } },
        answers: { 204: { description: 'signed in', headers: { 'Set-Cookie': SESSION_COOKIE_DOC } } },
        errors: [[400, 'no key, or not a string; or a body nested deeper than 32 levels'],
          [401, 'not a live API key or access token (`field` is `key`); or a two-factor code missing, wrong or used (`field` is `code`)'],
          [403, 'sent from another site; or key sign-in is turned off for the page (WGCP_PAGE_KEY_SIGN_IN=off)'],
          [413, 'body larger than 4 KiB: refused on Content-Length before it is read, or as soon as a chunked body passes it'],
          [429, 'too many failed sign-ins from this address, or too many wrong codes for this key from anywhere; see Retry-After']],
      }),
    },
    {
      method: 'GET', path: '/api/session', auth: 'none',
      doc: () => ({ summary: 'Whether the session cookie is live (touches it)', answers: { 200: { description: 'the session, or signedIn false', shape: SESSION_STATE() } } }),
      handler(ctx) {
        const value = sessionCookieValue(ctx.req.headers.cookie);
        const info = value === null ? null : sessions().use(value, app.config.apiKey, app.now().toISOString());
        const ways = { singleSignOn: app.config.oidc !== null, keySignIn: app.config.pageKeySignIn };
        if (info === null) return { ...ok({ signedIn: false, ...ways }), headers: NO_STORE };
        const { credentialId, person, ...times } = info;
        if (person !== null) {
          return { ...ok({ signedIn: true, ...times, name: personName(person), role: person.role, credentialID: null, kind: 'person', subject: person.subject, email: person.email, twoFactor: null, ...ways }), headers: NO_STORE };
        }
        const c = credentialId === null ? null : app.store.credentials.get(credentialId);
        if (credentialId !== null && c === null) return { ...ok({ signedIn: false, ...ways }), headers: NO_STORE };
        const who = c === null ? { name: CONFIGURED_KEY_NAME, role: 'admin', credentialID: null, kind: 'apikey' } : { name: c.name, role: c.role, credentialID: c.id, kind: c.kind };
        const twoFactor = credentialId === null ? null : totpStatus(app.store, credentialId).enabled;
        return { ...ok({ signedIn: true, ...times, ...who, twoFactor, ...ways }), headers: NO_STORE };
      },
    },
    {
      method: 'DELETE', path: '/api/session', auth: 'none',
      doc: () => ({
        summary: 'Sign out: ends the session and clears the cookie',
        answers: {
          200: {
            description: "signed out here; a person signed in by single sign-on goes on to the provider's sign-out", headers: { 'Set-Cookie': SESSION_COOKIE_DOC },
            shape: { type: 'object', properties: { endSessionUrl: { type: 'string', description: "the provider's end_session_endpoint, coming back to WGCP_PUBLIC_URL" } } },
          },
          204: { description: 'signed out', headers: { 'Set-Cookie': SESSION_COOKIE_DOC } },
        },
        errors: [[403, 'sent from another site with a live cookie']],
      }),
      async handler(ctx) {
        const value = sessionCookieValue(ctx.req.headers.cookie);
        const live = value === null ? null : sessions().use(value, app.config.apiKey, app.now().toISOString());
        if (value !== null && live !== null) {
          if (!isSameOrigin(ctx.req.headers)) throw apiError('WGCP_CROSS_SITE', { advice: 'sign out from this page' });
          sessions().close(value);
          app.log.info('dashboard session closed');
        }
        const headers = { ...NO_STORE, 'Set-Cookie': sessionClearCookie(isTls(ctx)) };
        // A person signed in by single sign-on is signed out at the provider too, where it
        // offers that (RP-initiated logout): the page goes there next.
        const endSessionUrl = live?.person && app.config.oidc ? await app.services.oidcClient().endSessionUrl().catch(() => null) : null;
        return endSessionUrl ? { status: 200, json: { endSessionUrl }, headers } : { status: 204, headers };
      },
    },
  ];
}
