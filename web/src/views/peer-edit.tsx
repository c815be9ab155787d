// A peer's settings: name, e-mail, addresses, monthly data limit, expiry. What the page can
// check is checked before sending, all at once; the API's field error shows beside its field.
import { api } from '../api';
import { fromLocalInput, limitOf, limitValue, toLocalInput } from '../format';
import { FormError, TextField, useFollowingForm } from '../form';
import { notify } from '../notice';
import type { Peer } from '../types';
import { checkPeer, expiryHint, expiryHintOperator, limitHint, limitLabel } from './peer-fields';
import { can } from '../role';
import { downloadLabel, mbpsOf, speedHint, speedLimit, uploadLabel } from './peer-speed';
import { useServerDefaults, withDefault } from './server-default-hint';
import { checkClient, clientHints, clientBodyOf, clientValuesOf } from './peer-client';
import { t } from '../i18n';

const valuesOf = (p: Peer) => ({ name: p.name, email: p.email, ip: p.ip, ip6: p.ip6 ?? '', dataLimitGiB: String(limitOf(p)), expiresAt: toLocalInput(p.expiresAt),
  downloadLimitMbps: p.downloadLimitMbps === null ? '' : String(p.downloadLimitMbps), uploadLimitMbps: p.uploadLimitMbps === null ? '' : String(p.uploadLimitMbps), ...clientValuesOf(p) });

export function PeerEdit({ peer, onSaved }: { peer: Peer; onSaved: (p: Peer) => void }) {
  const { form, shown } = useFollowingForm('edit', valuesOf(peer), peer.updatedAt);
  const submit = form.submit(async () => {
    const v = form.values;
    const body: Record<string, unknown> = {
      name: v.name, email: v.email.trim(), ip: v.ip.trim(), dataLimitGiB: limitValue(v.dataLimitGiB),
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
    notify(t('peerf.saved'));
  }, (v) => {
    const found = { ...checkPeer(v, shown.current.expiresAt), ...checkClient(v) };
    for (const k of ['downloadLimitMbps', 'uploadLimitMbps'] as const) if (speedLimit(v[k])) found[k] = speedLimit(v[k]);
    return found;
  });
  const hints = clientHints();
  const defaults = useServerDefaults(peer.serverID, peer.allowInternet);
  return (
    <section aria-labelledby="edit-h">
      <h2 id="edit-h">{t('peer.sec.settings')}</h2>
      <form onSubmit={submit} noValidate class="cols">
        <TextField form={form} name="name" label={t('f.name')} maxLength={64} />
        <TextField form={form} name="email" label={t('f.email')} type="email" autoComplete="off" />
        <TextField form={form} name="ip" label={t('peers.col.address')} />
        {peer.ip6 !== null && <TextField form={form} name="ip6" label={t('peerf.ip6')} />}
        <TextField form={form} name="dataLimitGiB" label={limitLabel()} inputMode="decimal" hint={limitHint()} />
        <TextField form={form} name="expiresAt" label={t('peers.col.expires')} type="datetime-local" hint={can('admin') ? expiryHint() : expiryHintOperator()} />
        <TextField form={form} name="downloadLimitMbps" label={downloadLabel()} inputMode="text" hint={speedHint()} />
        <TextField form={form} name="uploadLimitMbps" label={uploadLabel()} inputMode="text" />
        <TextField form={form} name="networks" label={t('client.networksLabel')} hint={hints.networks} />
        <TextField form={form} name="dns" label={t('client.dnsLabel')} hint={withDefault(hints.dns, defaults, 'dns')} />
        <TextField form={form} name="clientAllowedIPs" label={t('client.routesLabel')} hint={withDefault(hints.clientAllowedIPs, defaults, 'clientAllowedIPs')} />
        <TextField form={form} name="persistentKeepalive" label={t('client.keepaliveLabel')} inputMode="numeric" hint={withDefault(hints.persistentKeepalive, defaults, 'persistentKeepalive')} />
        <TextField form={form} name="mtu" label={t('client.mtuLabel')} inputMode="numeric" hint={withDefault(hints.mtu, defaults, 'mtu')} />
        <FormError form={form} />
        <div class="buttons"><button type="submit" class="primary" disabled={form.busy}>{t('peerf.save')}</button></div>
      </form>
    </section>
  );
}
