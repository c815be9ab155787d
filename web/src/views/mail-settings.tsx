// The SMTP settings wgcpd mails through (peer configurations, notices), and a test mail.
import { useEffect } from 'preact/hooks';
import { api, get } from '../api';
import { Checkbox, FormError, TextField, toInt, useForm } from '../form';
import { LoadError, useLoad, useTitle } from '../load';
import { notify } from '../notice';
import type { Smtp } from '../types';

const valuesOf = (s?: Smtp) => ({
  enabled: s?.enabled ?? false, server: s?.server ?? '', port: String(s?.port ?? 587), useTLS: s?.useTLS ?? true, useAuth: s?.useAuth ?? true,
  username: s?.username ?? '', password: s?.password ?? '', fromEmail: s?.fromEmail ?? '', fromName: s?.fromName ?? '',
});

export function MailSettings() {
  useTitle('Mail');
  const smtp = useLoad(() => get<Smtp>('/api/settings/smtp'), []);
  const form = useForm('smtp', valuesOf());
  const test = useForm('smtptest', { to: '' });
  useEffect(() => { if (smtp.data) form.reset(valuesOf(smtp.data)); }, [smtp.data]);
  const save = form.submit(async () => {
    const v = form.values;
    const saved = await api<Smtp>('POST', '/api/settings/smtp', { ...v, port: toInt(v.port), server: v.server.trim(), fromEmail: v.fromEmail.trim() });
    form.reset(valuesOf(saved));
    notify('Mail settings saved');
  });
  const send = test.submit(async () => {
    const r = await api<{ to: string }>('POST', '/api/settings/smtp/test', test.values.to.trim() ? { to: test.values.to.trim() } : {});
    notify(`Test mail sent to ${r.to}`);
  });
  return (
    <>
      <h1>Mail</h1>
      <LoadError error={smtp.error} code={smtp.code} reload={smtp.reload} />
      <form onSubmit={save} noValidate>
        <Checkbox form={form} name="enabled" label="Send mail (peer configurations, notices)" />
        <TextField form={form} name="server" label="SMTP server" placeholder="smtp.example.com" />
        <TextField form={form} name="port" label="Port" inputMode="numeric" hint="587 with STARTTLS, 465 with TLS from the start." />
        <Checkbox form={form} name="useTLS" label="Use TLS" />
        <Checkbox form={form} name="useAuth" label="Sign in to the server" />
        <TextField form={form} name="username" label="User name" autoComplete="off" />
        <TextField form={form} name="password" label="Password" type="password" autoComplete="new-password" hint="Shown as ********: left so, the stored password stays." />
        <TextField form={form} name="fromEmail" label="From address" type="email" />
        <TextField form={form} name="fromName" label="From name" />
        <FormError form={form} />
        <div class="buttons"><button type="submit" class="primary" disabled={form.busy}>Save mail settings</button></div>
      </form>
      <section aria-labelledby="test-h">
        <h2 id="test-h">Test mail</h2>
        <form onSubmit={send} noValidate>
          <TextField form={test} name="to" label="Send a test mail to" type="email" hint="Empty: to the from address. Uses the saved settings." />
          <FormError form={test} />
          <div class="buttons"><button type="submit" disabled={test.busy}>{test.busy ? 'Sending…' : 'Send test mail'}</button></div>
        </form>
      </section>
    </>
  );
}
