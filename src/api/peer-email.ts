// POST /api/peers/{id}/email: the peer's .conf as an attachment and its QR code inline, to
// the body's `to` or the peer's own address. An SMTP failure is the answer: 502 with the
// server's words.
import { apiError } from '../error-registry';
import type { App } from '../app';
import type { Route } from '../http/router';
import { ok } from '../http/reply';
import { MailError, peerConfigMessage, sendMail } from '../events/mail';
import { EMAIL, badField, readString } from './fields';
import { optionalBody } from './optional-body';
import { peerConfText, renderQrPng } from './peer-files';
import { peerFromPath } from './lookups';

export function requireSmtp(app: App) {
  const smtp = app.store.smtp.get();
  if (!smtp.enabled) throw apiError('WGCP_SMTP_DISABLED');
  return smtp;
}

export async function deliverMail(send: () => Promise<{ messageId: string; accepted: string[] }>) {
  try {
    return await send();
  } catch (err) {
    if (err instanceof MailError) throw apiError('WGCP_MAIL_NOT_SENT', { reason: err.message });
    throw err;
  }
}

export function peerEmailRoutes(app: App): Route[] {
  return [
    {
      method: 'POST', path: '/api/peers/:id/email', auth: 'control', role: 'operator',
      doc: () => ({
        summary: "Mail the peer's .conf (attached) and QR code (inline) to `to` or the peer's email", body: 'MailTo', bodyOptional: true,
        answers: { 200: { description: 'sent', shape: 'MailSent' } },
        errors: [400, 404, 413, [409, 'SMTP is not enabled'], [502, 'the SMTP server refused or failed; the error carries its words']],
      }),
      async handler(ctx) {
        const peer = peerFromPath(app, ctx.params.id);
        const body = await optionalBody(ctx);
        const smtp = requireSmtp(app);
        const to = readString(body, 'to', { max: 254 }) || peer.email;
        if (!to) throw badField('to', 'is required: the peer has no email address');
        if (!EMAIL.test(to)) throw badField('to', 'must be an e-mail address');
        const conf = peerConfText(app, peer);
        const png = await renderQrPng(conf);
        const sent = await deliverMail(() => sendMail(smtp, peerConfigMessage(peer, to, conf, png)));
        app.log.info('peer configuration mailed', { peerID: peer.id });
        return ok({ sent: true, to, messageId: sent.messageId });
      },
    },
  ];
}
