// A peer's settings: name, e-mail, address, monthly data limit, expiry. The API's field
// error shows beside its field.
import { useEffect, useRef } from 'preact/hooks';
import { api } from '../api';
import { fromLocalInput, toLocalInput } from '../format';
import { FormError, TextField, toInt, useForm } from '../form';
import { notify } from '../notice';
import type { Peer } from '../types';

const valuesOf = (p: Peer) => ({ name: p.name, email: p.email, ip: p.ip, dataLimitGB: String(p.dataLimitGB), expiresAt: toLocalInput(p.expiresAt) });

export function PeerEdit({ peer, onSaved }: { peer: Peer; onSaved: (p: Peer) => void }) {
  const form = useForm('edit', valuesOf(peer));
  const shown = useRef(valuesOf(peer));
  // A change made elsewhere (the live stream) refills the form, unless the admin has started editing it.
  useEffect(() => {
    const untouched = Object.entries(shown.current).every(([k, v]) => form.values[k as keyof typeof form.values] === v);
    shown.current = valuesOf(peer);
    if (untouched || form.busy) form.reset(shown.current);
  }, [peer.updatedAt]);
  const submit = form.submit(async () => {
    const v = form.values;
    const saved = await api<Peer>('PUT', `/api/peers/${peer.id}`, {
      name: v.name, email: v.email.trim(), ip: v.ip.trim(), dataLimitGB: toInt(v.dataLimitGB || '0'), expiresAt: fromLocalInput(v.expiresAt),
    });
    onSaved(saved);
    notify('Peer settings saved');
  });
  return (
    <section aria-labelledby="edit-h">
      <h2 id="edit-h">Settings</h2>
      <form onSubmit={submit} noValidate class="cols">
        <TextField form={form} name="name" label="Name" maxLength={64} />
        <TextField form={form} name="email" label="E-mail" type="email" autoComplete="off" />
        <TextField form={form} name="ip" label="Address" />
        <TextField form={form} name="dataLimitGB" label="Monthly data limit (GB)" inputMode="numeric" hint="0 means no limit." />
        <TextField form={form} name="expiresAt" label="Expires" type="datetime-local" hint="Empty: never." />
        <FormError form={form} />
        <div class="buttons"><button type="submit" class="primary" disabled={form.busy}>Save settings</button></div>
      </form>
    </section>
  );
}
