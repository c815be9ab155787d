// The one SMTP configuration. The password is never shown: GET masks it, and a POST that
// sends the mask back keeps the stored one. The server may not point where mail must not
// go (net/address-guard); a change of server or port is checked on the merged settings.
import type { App } from '../app';
import type { Route } from '../http/router';
import { ok } from '../http/reply';
import type { SmtpRecord } from '../store/smtp';
import { EMAIL, HOSTNAME, badField, readBool, readInt, readName, readString } from './fields';
import { MASK, presentSmtp } from '../views/present';
import { hostRefusal, inputRefusalText } from '../net/address-guard';
import { guardFacts } from '../net/own-listeners';

export function smtpRoutes(app: App): Route[] {
  const { store } = app;
  return [
    { method: 'GET', path: '/api/settings/smtp', auth: 'control', handler: () => ok(presentSmtp(store.smtp.get())) },
    {
      method: 'POST', path: '/api/settings/smtp', auth: 'control',
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
        const saved = store.tx(() => {
          const next: SmtpRecord = { ...store.smtp.get() };
          for (const [k, v] of Object.entries(input)) if (v !== undefined) (next as unknown as Record<string, unknown>)[k] = v;
          if (next.enabled && next.server === '') throw badField('server', 'is required when SMTP is enabled');
          const refusal = (input.server !== undefined || input.port !== undefined) && next.server !== '' ? hostRefusal(next.server, next.port, guardFacts()) : null;
          if (refusal) throw badField('server', inputRefusalText(refusal));
          if (next.enabled && next.fromEmail === '') throw badField('fromEmail', 'is required when SMTP is enabled');
          if (next.enabled && next.useAuth && next.username === '') throw badField('username', 'is required when useAuth is true');
          store.smtp.save(next);
          return next;
        });
        return ok(presentSmtp(saved));
      },
    },
  ];
}
