// Send the peer its configuration by mail (.conf attached, QR code inline) through the SMTP
// settings; the address defaults to the peer's own.
import { useEffect } from 'preact/hooks';
import { api } from '../api';
import { FormError, TextField, useForm } from '../form';
import { notify } from '../notice';
import { href } from '../router';
import type { Peer } from '../types';

export function PeerMail({ peer }: { peer: Peer }) {
  const form = useForm('mail', { to: peer.email });
  useEffect(() => { if (!form.values.to) form.set('to', peer.email); }, [peer.email]);
  const submit = form.submit(async () => {
    const r = await api<{ to: string }>('POST', `/api/peers/${peer.id}/email`, form.values.to.trim() ? { to: form.values.to.trim() } : {});
    notify(`Configuration mailed to ${r.to}`);
  });
  if (!peer.hasPrivateKey) return null;
  return (
    <section aria-labelledby="mail-h">
      <h2 id="mail-h">Send by mail</h2>
      <form onSubmit={submit} noValidate>
        <TextField form={form} name="to" label="To" type="email" autoComplete="off"
          hint={<>The .conf file attached and its QR code. Mail goes out through the <a href={href('mail')}>mail settings</a>.</>} />
        <FormError form={form} />
        <div class="buttons"><button type="submit" disabled={form.busy}>{form.busy ? 'Sending…' : 'Send the configuration'}</button></div>
      </form>
    </section>
  );
}
