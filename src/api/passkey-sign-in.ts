// Signing in to the page with a passkey (no session yet, so `auth: 'none'`):
//   POST /api/session/passkey/options {key?}  the options for navigator.credentials.get():
//     with a key, that key's passkeys (a second factor); without, any person's passkey.
//   POST /api/session/passkey {key?, response}  the browser's answer: a session, as
//     POST /api/session opens one.
// Failures count against the sign-in limits of the key's sign-in (per address, and per key
// for a wrong second factor) and are audited with their reason.
import { apiError, fieldError } from '../error-registry';
import type { App } from '../app';
import type { RequestContext, Route } from '../http/router';
import type { Reply } from '../http/reply';
import type { Actor } from '../store/audit';
import { grantOf, openPageSession, readKey, refuseForeignSignIn, type Grant } from '../http/session';
import { limiterKey } from '../device/failure-limiter';
import { recordSignInFailure } from '../ops/sign-ins';
import { beginPasskeySignIn, finishPasskeySignIn } from '../ops/passkey-sign-in';
import { ownerName } from '../ops/passkeys';
import { personName } from '../store/sessions';
import { relyingParty } from './passkey-origin';
import { optionalBody } from './optional-body';

const NO_STORE = { 'Cache-Control': 'no-store' };

/** The browser's WebAuthn answer (its JSON form): an object with an id and a response, at most 16 KiB of JSON. */
export function readPasskeyAnswer(body: Record<string, unknown>): Record<string, unknown> {
  const v = body.response;
  if (v === undefined || v === null) throw fieldError('response', 'is required');
  const r = v as { id?: unknown; response?: unknown };
  if (typeof v !== 'object' || Array.isArray(v) || typeof r.id !== 'string' || typeof r.response !== 'object' || r.response === null) {
    throw fieldError('response', "must be the browser's WebAuthn answer as JSON (id, response)");
  }
  if (JSON.stringify(v).length > 16_384) throw fieldError('response', 'must be at most 16384 characters of JSON');
  return v as Record<string, unknown>;
}

const tooMany = (wait: number) => apiError('WGCP_SIGN_IN_THROTTLED', { wait }, { headers: { 'Retry-After': String(wait) } });

// The OpenAPI shapes the passkey routes share (these and api/passkeys.ts).
export const PASSKEY_ANSWER = () => ({ type: 'object', description: "the browser's WebAuthn answer in its JSON form (@simplewebauthn/browser's, or PublicKeyCredential.toJSON())", required: ['id', 'response'] });
export const PASSKEY_OPTIONS = (what: string) => ({ description: `the options for navigator.credentials.${what}(); the challenge in it is good for one answer within 2 minutes`, shape: { type: 'object' } });
export const PASSKEY_HOST: [number, string] = [400, 'the Host names no address or name of this router and WGCP_PUBLIC_URL is unset, or it is an address (passkeys need a name)'];
export const PASSKEY_REFUSED: [number, string] = [400, 'the answer is for no challenge under way (400) or not accepted: signature, origin, relying party, user verification, a counter that did not move forward (401)'];

export function passkeySignInRoutes(app: App): Route[] {
  const limiter = () => app.services.signIns;
  const source = (ctx: RequestContext) => ctx.req.socket.remoteAddress ?? null;

  /** The key presented with a second factor, as sign-in checks it; null when none was sent. */
  function presentedKey(ctx: RequestContext, body: Record<string, unknown>): { grant: Grant; actor: Actor } | null {
    if (body.key === undefined || body.key === null || body.key === '') return null;
    if (!app.config.pageKeySignIn) {
      recordSignInFailure(app, { kind: 'page', id: null, name: '', role: null, address: source(ctx) }, 'key sign-in off for the page');
      throw apiError('WGCP_KEY_SIGN_IN_OFF');
    }
    const grant = grantOf(app, readKey(body), app.now().toISOString());
    if (grant === null) {
      limiter().recordFailure(limiterKey(source(ctx) ?? ''), null);
      recordSignInFailure(app, { kind: 'page', id: null, name: '', role: null, address: source(ctx) }, 'unknown key');
      throw apiError('WGCP_UNAUTHORIZED', undefined, { field: 'key' });
    }
    return { grant, actor: { kind: 'page', id: grant.credentialId, name: grant.name, role: grant.role, address: source(ctx) } };
  }

  function refuseThrottled(ctx: RequestContext, credentialId: number | null): void {
    const wait = Math.max(limiter().addressBlockedFor(limiterKey(source(ctx) ?? '')), credentialId === null ? 0 : limiter().credentialBlockedFor(credentialId));
    if (wait > 0) throw tooMany(wait);
  }

  async function options(ctx: RequestContext): Promise<Reply> {
    refuseForeignSignIn(ctx);
    refuseThrottled(ctx, null);
    const key = presentedKey(ctx, await optionalBody(ctx));
    if (key !== null && key.grant.credentialId === null) throw apiError('WGCP_PASSKEY_NONE');
    return { status: 200, json: await beginPasskeySignIn(app, relyingParty(app.config, ctx.req), key?.grant.credentialId ?? null), headers: NO_STORE };
  }

  async function signIn(ctx: RequestContext): Promise<Reply> {
    refuseForeignSignIn(ctx);
    refuseThrottled(ctx, null);
    const body = await ctx.body();
    const key = presentedKey(ctx, body);
    const credentialId = key?.grant.credentialId ?? null;
    if (key !== null && credentialId === null) throw apiError('WGCP_PASSKEY_NONE');
    refuseThrottled(ctx, credentialId);
    const response = readPasskeyAnswer(body);
    const rp = relyingParty(app.config, ctx.req);
    let done;
    try {
      done = await finishPasskeySignIn(app, rp, response, credentialId);
    } catch (err) {
      limiter().recordFailure(limiterKey(source(ctx) ?? ''), credentialId);
      const code = (err as { code?: string }).code ?? '';
      recordSignInFailure(app, key?.actor ?? { kind: 'person', id: null, name: '', role: null, address: source(ctx) }, 'passkey refused', { detail: code });
      app.log.warn('dashboard sign-in refused: passkey', { address: source(ctx), code });
      throw err;
    }
    const summary = { passkeyID: done.passkey.id, passkey: done.passkey.name };
    if ('credentialId' in done) return { ...openPageSession(app, ctx, key!.grant, key!.actor, summary) };
    const { person } = done;
    const actor: Actor = { kind: 'person', id: null, name: personName(person), role: person.role, address: source(ctx) };
    const grant: Grant = { credentialId: null, keyHash: '', expiresAt: null, person, name: ownerName(app, done.passkey.owner), role: person.role };
    return openPageSession(app, ctx, grant, actor, { ...summary, subject: person.subject, email: person.email });
  }

  return [
    {
      method: 'POST', path: '/api/session/passkey/options', auth: 'none', handler: options,
      doc: () => ({
        summary: "Start signing in with a passkey: with `key`, that key's passkeys (its second factor); without, a person's passkey (a first factor)",
        body: { type: 'object', properties: { key: { type: 'string' } } }, bodyOptional: true,
        answers: { 200: PASSKEY_OPTIONS('get') },
        errors: [PASSKEY_HOST, [401, 'not a live API key or access token (`field` is `key`)'], [403, 'sent from another site; or key sign-in is off for the page'],
          [409, 'this key or token has no passkey'], [429, 'too many failed sign-ins; see Retry-After']],
      }),
    },
    {
      method: 'POST', path: '/api/session/passkey', auth: 'none', handler: signIn,
      doc: () => ({
        summary: 'Sign in with a passkey: a session cookie, as POST /api/session gives',
        body: { type: 'object', required: ['response'], properties: { key: { type: 'string', description: 'the key or token whose second factor the passkey is; absent for a person\'s passkey' }, response: PASSKEY_ANSWER() } },
        answers: { 204: { description: 'signed in', headers: { 'Set-Cookie': { description: 'session cookie `wgcp_session`', schema: { type: 'string' } } } } },
        errors: [PASSKEY_REFUSED, [401, 'a key not live; a passkey not registered (or removed, or another key\'s); a second factor used alone; a signature, origin or counter refused'],
          [403, 'sent from another site; or single sign-on gives the passkey\'s person no role now'], [409, 'this key or token has no passkey'], [429, 'too many failed sign-ins; see Retry-After']],
      }),
    },
  ];
}
