// Send the peer its configuration by mail (.conf attached, QR code inline) through the SMTP
// settings; the address defaults to the peer's own.
import { useEffect } from 'preact/hooks';
import { api } from '../api';
import { FormError, TextField, useForm } from '../form';
import { notify } from '../notice';
import { href } from '../router';
import type { Peer } from '../types';
import { t } from '../i18n';

export function PeerMail({ peer }: { peer: Peer }) {
  const form = useForm('mail', { to: peer.email });
  useEffect(() => { if (!form.values.to) form.set('to', peer.email); }, [peer.email]);
  const submit = form.submit(async () => {
    const r = await api<{ to: string }>('POST', `/api/peers/${peer.id}/email`, form.values.to.trim() ? { to: form.values.to.trim() } : {});
    notify(t('mailpeer.sent', { to: r.to }));
  });
  if (!peer.hasPrivateKey) return null;
  return (
    <section aria-labelledby="mail-h">
      <h2 id="mail-h">{t('mailpeer.title')}</h2>
      <form onSubmit={submit} noValidate>
        <TextField form={form} name="to" label={t('mailpeer.to')} type="email" autoComplete="off"
          hint={<>{t('mailpeer.hint')} <a href={href('mail')}>{t('mailpeer.settings')}</a></>} />
        <FormError form={form} />
        <div class="buttons"><button type="submit" disabled={form.busy}>{form.busy ? t('mail.sending') : t('mailpeer.send')}</button></div>
      </form>
    </section>
  );
}
