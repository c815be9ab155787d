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
import { readPasskeyAnswer } from './passkey-sign-in';

const NO_STORE = { 'Cache-Control': 'no-store' };

export function passkeyRoutes(app: App): Route[] {
  return [
    { method: 'GET', path: '/api/session/passkeys', auth: 'control', role: 'viewer', handler: (ctx) => ({ ...ok(listPasskeys(app, ctx.actor!)), headers: NO_STORE }) },
    {
      method: 'POST', path: '/api/session/passkeys/options', auth: 'control', role: 'viewer',
      async handler(ctx) {
        return { ...ok(await beginRegistration(app, ctx.actor!, relyingParty(app.config, ctx.req))), headers: NO_STORE };
      },
    },
    {
      method: 'POST', path: '/api/session/passkeys', auth: 'control', role: 'viewer',
      async handler(ctx) {
        const body = await ctx.body();
        const passkey = await finishRegistration(app, ctx.actor!, relyingParty(app.config, ctx.req), readPasskeyAnswer(body), readName(body, 'name', { max: PASSKEY_NAME_MAX }));
        app.log.info('passkey registered', { passkeyID: passkey.id });
        return created(passkey);
      },
    },
    {
      method: 'PUT', path: '/api/session/passkeys/:id', auth: 'control', role: 'viewer',
      async handler(ctx) {
        const id = parseId(ctx.params.id, 'passkey');
        return ok(await renamePasskey(app, ctx.actor!, id, readName(await ctx.body(), 'name', { max: PASSKEY_NAME_MAX, min: 1 })));
      },
    },
    {
      method: 'DELETE', path: '/api/session/passkeys/:id', auth: 'control', role: 'viewer',
      async handler(ctx) {
        await removePasskey(app, ctx.actor!, parseId(ctx.params.id, 'passkey'));
        app.log.info('passkey removed', { passkeyID: Number(ctx.params.id) });
        return noContent();
      },
    },
  ];
}
