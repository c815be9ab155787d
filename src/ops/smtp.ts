// The SMTP settings as a change: merged over the stored settings as they stand when the
// change is planned, checked whole (a change of server or port against where mail must not
// go), then saved. No kernel step, no event: the password is never in one.
import type { App } from '../app';
import { hostRefusal, inputRefusalText } from '../net/address-guard';
import { guardFacts } from '../net/own-listeners';
import type { SmtpRecord } from '../store/smtp';
import { badField } from './field-error';
import type { ChangeOptions } from './runner';

export type SmtpInput = Partial<SmtpRecord>;

export function saveSmtp(app: App, input: SmtpInput, opts?: ChangeOptions): Promise<SmtpRecord> {
  return app.runner.run('smtp.save', (store) => {
    const next: SmtpRecord = { ...store.smtp.get() };
    for (const [k, v] of Object.entries(input)) if (v !== undefined) Reflect.set(next, k, v);
    if (next.enabled && next.server === '') throw badField('server', 'is required when SMTP is enabled');
    const refusal = (input.server !== undefined || input.port !== undefined) && next.server !== '' ? hostRefusal(next.server, next.port, guardFacts()) : null;
    if (refusal) throw badField('server', inputRefusalText(refusal));
    if (next.enabled && next.fromEmail === '') throw badField('fromEmail', 'is required when SMTP is enabled');
    if (next.enabled && next.useAuth && next.username === '') throw badField('username', 'is required when useAuth is true');
    return { commit: ({ store }) => { store.smtp.save(next); return next; } };
  }, opts);
}
