// /api/session/totp: two-factor sign-in of the signed-in page session's own key or token.
// GET tells its state, POST starts an enrolment (the secret and its QR code, once), POST
// …/confirm turns it on with a first code (the recovery codes, once), DELETE turns it off.
import type { App } from '../app';
import type { Route } from '../http/router';
import { noContent, ok } from '../http/reply';
import { beginTotp, confirmTotp, disableTotp, statusOfActor } from '../ops/totp';
import { readString, required } from './fields';

const NO_STORE = { 'Cache-Control': 'no-store' };

function renderQrSvg(text: string): Promise<string> {
  // Loaded at the first enrolment, as for the peers' QR codes (peer-files.ts).
  const QRCode = require('qrcode') as typeof import('qrcode');
  return QRCode.toString(text, { type: 'svg', errorCorrectionLevel: 'M', margin: 4 });
}

const readCode = (body: Record<string, unknown>): string => required(readString(body, 'code', { max: 32, min: 1 }), 'code');

const TOTP_STATE = () => ({ type: 'object', properties: { enabled: { type: 'boolean' }, pending: { type: 'boolean' }, recoveryCodesLeft: { type: 'integer' } } });
const CODE_BODY = () => ({ type: 'object', required: ['code'], properties: { code: { type: 'string', description: 'a 6-digit code of the authenticator app (or a recovery code)' } } });

export function totpRoutes(app: App): Route[] {
  return [
    {
      method: 'GET', path: '/api/session/totp', auth: 'control', role: 'viewer',
      doc: () => ({ summary: "Two-factor sign-in of the session's key or token", answers: { 200: { description: 'its state', shape: TOTP_STATE() } } }),
      handler: (ctx) => ({ ...ok(statusOfActor(app, ctx.actor!)), headers: NO_STORE }),
    },
    {
      method: 'POST', path: '/api/session/totp', auth: 'control', role: 'viewer',
      doc: () => ({
        summary: 'Start an enrolment: the secret and its QR code (SVG), shown only here', errors: [[409, 'on already']],
        answers: { 200: { description: 'the secret', shape: { type: 'object', properties: { secret: { type: 'string' }, uri: { type: 'string' }, qrSvg: { type: 'string' } } } } },
      }),
      async handler(ctx) {
        const { secret, uri } = beginTotp(app, ctx.actor!);
        return { ...ok({ secret, uri, qrSvg: await renderQrSvg(uri) }), headers: NO_STORE };
      },
    },
    {
      method: 'POST', path: '/api/session/totp/confirm', auth: 'control', role: 'viewer',
      doc: () => ({
        summary: 'Turn two-factor sign-in on with a first code; the answer holds the ten recovery codes, once', body: CODE_BODY(),
        answers: { 200: { description: 'on', shape: { type: 'object', properties: { recoveryCodes: { type: 'array', items: { type: 'string' } } } } } },
        errors: [[400, 'bad code'], [409, 'no enrolment under way']],
      }),
      async handler(ctx) {
        const recoveryCodes = confirmTotp(app, ctx.actor!, readCode(await ctx.body()));
        app.log.info('two-factor sign-in turned on', { credentialID: ctx.actor!.id });
        return { ...ok({ recoveryCodes }), headers: NO_STORE };
      },
    },
    {
      method: 'DELETE', path: '/api/session/totp', auth: 'control', role: 'viewer',
      doc: () => ({ summary: 'Turn two-factor sign-in off (needs a current code or a recovery code)', body: CODE_BODY(), answers: { 204: { description: 'off' } }, errors: [[400, 'bad code'], [409, 'not on']] }),
      async handler(ctx) {
        disableTotp(app, ctx.actor!, readCode(await ctx.body()));
        app.log.info('two-factor sign-in turned off', { credentialID: ctx.actor!.id });
        return noContent();
      },
    },
  ];
}
