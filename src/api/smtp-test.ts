// POST /api/settings/smtp/test: a test message with the stored settings (enabled or not),
// to the body's `to` or the sender address itself.
import { apiError } from '../error-registry';
import type { App } from '../app';
import type { Route } from '../http/router';
import { ok } from '../http/reply';
import { sendMail, testMessage } from '../events/mail';
import { EMAIL, badField, readString } from './fields';
import { optionalBody } from './optional-body';
import { deliverMail } from './peer-email';

export function smtpTestRoutes(app: App): Route[] {
  return [
    {
      method: 'POST', path: '/api/settings/smtp/test', auth: 'control', role: 'admin',
      doc: () => ({
        summary: 'Send a test message with the stored SMTP settings to `to` or the sender address', body: 'MailTo', bodyOptional: true,
        answers: { 200: { description: 'sent', shape: 'MailSent' } },
        errors: [400, 413, [409, 'server or fromEmail not set'], [502, 'the SMTP server refused or failed; the error carries its words']],
      }),
      async handler(ctx) {
        const body = await optionalBody(ctx);
        const smtp = app.store.smtp.get();
        if (!smtp.server || !smtp.fromEmail) throw apiError('WGCP_SMTP_INCOMPLETE');
        const to = readString(body, 'to', { max: 254 }) || smtp.fromEmail;
        if (!EMAIL.test(to)) throw badField('to', 'must be an e-mail address');
        const sent = await deliverMail(() => sendMail(smtp, testMessage(to)));
        return ok({ sent: true, to, messageId: sent.messageId });
      },
    },
  ];
}
