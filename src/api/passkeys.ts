// /api/session/passkeys: the passkeys of the signed-in page session's owner (its key or
// token, or its person). GET lists them; POST …/options starts a registration (the options
// for navigator.credentials.create(), challenge kept by wgcpd); POST with the browser's
// answer stores it; PUT …/{id} renames, DELETE …/{id} removes.
import type { App } from '../app';
import type { Route } from '../http/router';
import { created, noContent, ok } from '../http/reply';
import { beginRegistration, finishRegistration, listPasskeys, PASSKEY_NAME_MAX, removePasskey, renamePasskey } from '../ops/passkeys';
import { parseId, readName } from './fields';
import { relyingParty } from './passkey-origin';
import { PASSKEY_ANSWER, PASSKEY_HOST, PASSKEY_OPTIONS, PASSKEY_REFUSED, readPasskeyAnswer } from './passkey-sign-in';

const NO_STORE = { 'Cache-Control': 'no-store' };

/** A passkey as the API shows it (never its key). */
const PASSKEY = () => ({
  type: 'object',
  properties: {
    id: { type: 'integer' }, name: { type: 'string' }, createdAt: { type: 'string', format: 'date-time' }, lastUsedAt: { type: ['string', 'null'], format: 'date-time' },
    transports: { type: 'array', items: { type: 'string' }, description: 'how the browser reaches the authenticator (internal, usb, hybrid, …)' },
  },
});
const TOO_MANY: [number, string] = [409, 'at most 20 passkeys each; or the WGCP_API_KEY of the environment'];

export function passkeyRoutes(app: App): Route[] {
  return [
    {
      method: 'GET', path: '/api/session/passkeys', auth: 'control', role: 'viewer',
      doc: () => ({
        summary: "The passkeys of the session's key or token, or of its person (never their keys)", answers: { 200: { description: 'by id', shape: { type: 'array', items: PASSKEY() } } },
        errors: [[403, 'the role is too low, or not a page session (passkeys are the page\'s)']],
      }),
      handler: (ctx) => ({ ...ok(listPasskeys(app, ctx.actor!)), headers: NO_STORE }),
    },
    {
      method: 'POST', path: '/api/session/passkeys/options', auth: 'control', role: 'viewer',
      doc: () => ({ summary: 'Start registering a passkey', answers: { 200: PASSKEY_OPTIONS('create') }, errors: [PASSKEY_HOST, TOO_MANY] }),
      async handler(ctx) {
        return { ...ok(await beginRegistration(app, ctx.actor!, relyingParty(app.config, ctx.req))), headers: NO_STORE };
      },
    },
    {
      method: 'POST', path: '/api/session/passkeys', auth: 'control', role: 'viewer',
      doc: () => ({
        summary: "Register a passkey: the browser's answer to the options of …/options",
        body: { type: 'object', required: ['response'], properties: { response: PASSKEY_ANSWER(), name: { type: 'string', maxLength: 64, description: 'default: Passkey N' } } },
        answers: { 201: { description: 'registered', shape: PASSKEY() } }, errors: [PASSKEY_REFUSED, TOO_MANY],
      }),
      async handler(ctx) {
        const body = await ctx.body();
        const passkey = await finishRegistration(app, ctx.actor!, relyingParty(app.config, ctx.req), readPasskeyAnswer(body), readName(body, 'name', { max: PASSKEY_NAME_MAX }));
        app.log.info('passkey registered', { passkeyID: passkey.id });
        return created(passkey);
      },
    },
    {
      method: 'PUT', path: '/api/session/passkeys/:id', auth: 'control', role: 'viewer',
      doc: () => ({
        summary: 'Rename one of my passkeys', body: { type: 'object', required: ['name'], properties: { name: { type: 'string', maxLength: 64 } } },
        answers: { 200: { description: 'renamed', shape: PASSKEY() } }, errors: [[400, 'bad name'], [404, 'not one of my passkeys']],
      }),
      async handler(ctx) {
        const id = parseId(ctx.params.id, 'passkey');
        return ok(await renamePasskey(app, ctx.actor!, id, readName(await ctx.body(), 'name', { max: PASSKEY_NAME_MAX, min: 1 })));
      },
    },
    {
      method: 'DELETE', path: '/api/session/passkeys/:id', auth: 'control', role: 'viewer',
      doc: () => ({ summary: 'Remove one of my passkeys: it signs in no more', answers: { 204: { description: 'removed' } }, errors: [[404, 'not one of my passkeys']] }),
      async handler(ctx) {
        await removePasskey(app, ctx.actor!, parseId(ctx.params.id, 'passkey'));
        app.log.info('passkey removed', { passkeyID: Number(ctx.params.id) });
        return noContent();
      },
    },
  ];
}
