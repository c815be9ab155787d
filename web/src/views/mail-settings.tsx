// The SMTP settings wgcpd mails through (peer configurations, notices), and a test mail.
import { useEffect } from 'preact/hooks';
import { api, get } from '../api';
import { Checkbox, FormError, TextField, toInt, useForm } from '../form';
import { LoadError, useLoad, useTitle } from '../load';
import { notify } from '../notice';
import type { Smtp } from '../types';
import { t } from '../i18n';

const valuesOf = (s?: Smtp) => ({
  enabled: s?.enabled ?? false, server: s?.server ?? '', port: String(s?.port ?? 587), useTLS: s?.useTLS ?? true, useAuth: s?.useAuth ?? true,
  username: s?.username ?? '', password: s?.password ?? '', fromEmail: s?.fromEmail ?? '', fromName: s?.fromName ?? '',
});

export function MailSettings() {
  useTitle(t('nav.mail'));
  const smtp = useLoad(() => get<Smtp>('/api/settings/smtp'), []);
  const form = useForm('smtp', valuesOf());
  const test = useForm('smtptest', { to: '' });
  useEffect(() => { if (smtp.data) form.reset(valuesOf(smtp.data)); }, [smtp.data]);
  const save = form.submit(async () => {
    const v = form.values;
    const saved = await api<Smtp>('POST', '/api/settings/smtp', { ...v, port: toInt(v.port), server: v.server.trim(), fromEmail: v.fromEmail.trim() });
    form.reset(valuesOf(saved));
    notify(t('mail.saved'));
  });
  const send = test.submit(async () => {
    const r = await api<{ to: string }>('POST', '/api/settings/smtp/test', test.values.to.trim() ? { to: test.values.to.trim() } : {});
    notify(t('mail.testSent', { to: r.to }));
  });
  return (
    <>
      <h1>{t('nav.mail')}</h1>
      <LoadError error={smtp.error} code={smtp.code} reload={smtp.reload} />
      <form onSubmit={save} noValidate>
        <Checkbox form={form} name="enabled" label={t('mail.enabled')} />
        <TextField form={form} name="server" label={t('mail.server')} placeholder="smtp.example.com" />
        <TextField form={form} name="port" label={t('mail.port')} inputMode="numeric" hint={t('mail.portHint')} />
        <Checkbox form={form} name="useTLS" label={t('mail.tls')} />
        <Checkbox form={form} name="useAuth" label={t('mail.auth')} />
        <TextField form={form} name="username" label={t('mail.user')} autoComplete="off" />
        <TextField form={form} name="password" label={t('mail.password')} type="password" autoComplete="new-password" hint={t('mail.passwordHint')} />
        <TextField form={form} name="fromEmail" label={t('mail.fromEmail')} type="email" />
        <TextField form={form} name="fromName" label={t('mail.fromName')} />
        <FormError form={form} />
        <div class="buttons"><button type="submit" class="primary" disabled={form.busy}>{t('mail.save')}</button></div>
      </form>
      <section aria-labelledby="test-h">
        <h2 id="test-h">{t('mail.test')}</h2>
        <form onSubmit={send} noValidate>
          <TextField form={test} name="to" label={t('mail.testTo')} type="email" hint={t('mail.testHint')} />
          <FormError form={test} />
          <div class="buttons"><button type="submit" disabled={test.busy}>{test.busy ? t('mail.sending') : t('mail.testSend')}</button></div>
        </form>
      </section>
    </>
  );
}
