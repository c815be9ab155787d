// A peer's settings: name, e-mail, addresses, monthly data limit, expiry. What the page can
// check is checked before sending, all at once; the API's field error shows beside its field.
import { useEffect, useRef } from 'preact/hooks';
import { api } from '../api';
import { fromLocalInput, toLocalInput } from '../format';
import { FormError, TextField, toInt, useForm } from '../form';
import { notify } from '../notice';
import type { Peer } from '../types';
import { checkPeer, EXPIRY_HINT, EXPIRY_HINT_OPERATOR, LIMIT_HINT, LIMIT_LABEL } from './peer-fields';
import { can } from '../role';
import { DOWNLOAD_LABEL, mbpsOf, SPEED_HINT, speedLimit, UPLOAD_LABEL } from './peer-speed';
import { CLIENT_HINTS, clientBodyOf, clientValuesOf } from './peer-client';

const valuesOf = (p: Peer) => ({ name: p.name, email: p.email, ip: p.ip, ip6: p.ip6 ?? '', dataLimitGB: String(p.dataLimitGB), expiresAt: toLocalInput(p.expiresAt),
  downloadLimitMbps: p.downloadLimitMbps === null ? '' : String(p.downloadLimitMbps), uploadLimitMbps: p.uploadLimitMbps === null ? '' : String(p.uploadLimitMbps), ...clientValuesOf(p) });

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
    const body: Record<string, unknown> = {
      name: v.name, email: v.email.trim(), ip: v.ip.trim(), dataLimitGB: toInt(v.dataLimitGB || '0'),
      downloadLimitMbps: mbpsOf(v.downloadLimitMbps), uploadLimitMbps: mbpsOf(v.uploadLimitMbps),
    };
    // The expiry is sent only when changed: the form shows minutes, the stored time may have
    // seconds, and an expiry brought nearer needs the role that may delete (docs/access.md).
    if (v.expiresAt !== shown.current.expiresAt) body.expiresAt = fromLocalInput(v.expiresAt);
    // The client's options are sent only when changed, as the expiry is.
    for (const [k, value] of Object.entries(clientBodyOf(v))) if (v[k as keyof typeof v] !== shown.current[k as keyof typeof v]) body[k] = value;
    // The IPv6 address is sent only when changed (the API cannot clear it: it follows the server's prefix).
    if (v.ip6.trim() && v.ip6.trim() !== (peer.ip6 ?? '')) body.ip6 = v.ip6.trim();
    const saved = await api<Peer>('PUT', `/api/peers/${peer.id}`, body);
    onSaved(saved);
    notify('Peer settings saved');
  }, (v) => {
    const found = checkPeer(v, shown.current.expiresAt);
    for (const k of ['downloadLimitMbps', 'uploadLimitMbps'] as const) if (speedLimit(v[k])) found[k] = speedLimit(v[k]);
    return found;
  });
  return (
    <section aria-labelledby="edit-h">
      <h2 id="edit-h">Settings</h2>
      <form onSubmit={submit} noValidate class="cols">
        <TextField form={form} name="name" label="Name" maxLength={64} />
        <TextField form={form} name="email" label="E-mail" type="email" autoComplete="off" />
        <TextField form={form} name="ip" label="Address" />
        {peer.ip6 !== null && <TextField form={form} name="ip6" label="IPv6 address" />}
        <TextField form={form} name="dataLimitGB" label={LIMIT_LABEL} inputMode="numeric" hint={LIMIT_HINT} />
        <TextField form={form} name="expiresAt" label="Expires" type="datetime-local" hint={can('admin') ? EXPIRY_HINT : EXPIRY_HINT_OPERATOR} />
        <TextField form={form} name="downloadLimitMbps" label={DOWNLOAD_LABEL} inputMode="text" hint={SPEED_HINT} />
        <TextField form={form} name="uploadLimitMbps" label={UPLOAD_LABEL} inputMode="text" />
        <TextField form={form} name="networks" label="Networks behind" hint={CLIENT_HINTS.networks} />
        <TextField form={form} name="dns" label="Client DNS" hint={CLIENT_HINTS.dns} />
        <TextField form={form} name="clientAllowedIPs" label="Client routes" hint={CLIENT_HINTS.clientAllowedIPs} />
        <TextField form={form} name="persistentKeepalive" label="Keepalive" inputMode="numeric" hint={CLIENT_HINTS.persistentKeepalive} />
        <TextField form={form} name="mtu" label="Client MTU" inputMode="numeric" hint={CLIENT_HINTS.mtu} />
        <FormError form={form} />
        <div class="buttons"><button type="submit" class="primary" disabled={form.busy}>Save settings</button></div>
      </form>
    </section>
  );
}
