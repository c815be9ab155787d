// The one SMTP configuration. The password is never shown: GET masks it, and a POST that
// sends the mask back keeps the stored one. The change and its rules are src/ops/smtp.ts.
import type { App } from '../app';
import type { Route } from '../http/router';
import { ok } from '../http/reply';
import { saveSmtp } from '../ops/smtp';
import { EMAIL, HOSTNAME, badField, readBool, readInt, readName, readString } from './fields';
import { MASK, presentSmtp } from '../views/present';

export function smtpRoutes(app: App): Route[] {
  const { store } = app;
  return [
    {
      method: 'GET', path: '/api/settings/smtp', auth: 'control', role: 'viewer',
      doc: () => ({ summary: 'SMTP settings', answers: { 200: { description: 'settings', shape: 'SMTPSettings' } } }),
      handler: () => ok(presentSmtp(store.smtp.get())),
    },
    {
      method: 'POST', path: '/api/settings/smtp', auth: 'control', role: 'admin',
      doc: () => ({ summary: 'Save SMTP settings', body: 'SMTPSettings', answers: { 200: { description: 'saved', shape: 'SMTPSettings' } }, errors: [400, 413] }),
      async handler(ctx) {
        const body = await ctx.body();
        const input = {
          enabled: readBool(body, 'enabled'),
          server: readString(body, 'server', { max: 253 }),
          port: readInt(body, 'port', 1, 65535),
          useAuth: readBool(body, 'useAuth'),
          useTLS: readBool(body, 'useTLS'),
          username: readString(body, 'username', { max: 256 }),
          password: readString(body, 'password', { max: 256 }),
          fromEmail: readString(body, 'fromEmail', { max: 254 }),
          fromName: readName(body, 'fromName', { max: 128 }),
        };
        if (input.server && !HOSTNAME.test(input.server) && !/^[0-9a-fA-F:.]+$/.test(input.server)) {
          throw badField('server', 'must be a host name or IP address');
        }
        if (input.fromEmail && !EMAIL.test(input.fromEmail)) throw badField('fromEmail', 'must be an e-mail address');
        if (input.password === MASK) input.password = undefined;
        const saved = await saveSmtp(app, input, { actor: ctx.actor });
        return ok(presentSmtp(saved));
      },
    },
  ];
}
