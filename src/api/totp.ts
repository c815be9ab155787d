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

export function totpRoutes(app: App): Route[] {
  return [
    { method: 'GET', path: '/api/session/totp', auth: 'control', role: 'viewer', handler: (ctx) => ({ ...ok(statusOfActor(app, ctx.actor!)), headers: NO_STORE }) },
    {
      method: 'POST', path: '/api/session/totp', auth: 'control', role: 'viewer',
      async handler(ctx) {
        const { secret, uri } = beginTotp(app, ctx.actor!);
        return { ...ok({ secret, uri, qrSvg: await renderQrSvg(uri) }), headers: NO_STORE };
      },
    },
    {
      method: 'POST', path: '/api/session/totp/confirm', auth: 'control', role: 'viewer',
      async handler(ctx) {
        const recoveryCodes = confirmTotp(app, ctx.actor!, readCode(await ctx.body()));
        app.log.info('two-factor sign-in turned on', { credentialID: ctx.actor!.id });
        return { ...ok({ recoveryCodes }), headers: NO_STORE };
      },
    },
    {
      method: 'DELETE', path: '/api/session/totp', auth: 'control', role: 'viewer',
      async handler(ctx) {
        disableTotp(app, ctx.actor!, readCode(await ctx.body()));
        app.log.info('two-factor sign-in turned off', { credentialID: ctx.actor!.id });
        return noContent();
      },
    },
  ];
}
