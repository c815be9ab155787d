// Add a peer to a server. Only a name is usual: the daemon picks the addresses and makes the
// keys. Saved, the peer's page opens with its QR code. The networks behind it and the client's
// own options are under "More settings", so the first QR code is already the right one (a
// change after it means scanning again); left empty, each is the server's default.
import { api } from '../api';
import { fromLocalInput, limitValue } from '../format';
import { t } from '../i18n';
import { Checkbox, FormError, TextField, useForm } from '../form';
import { useTitle } from '../load';
import { notify } from '../notice';
import { href, navigate } from '../router';
import type { Peer } from '../types';
import { checkPeer, expiryHint, limitHint, limitLabel } from './peer-fields';
import { useServerDefaults, withDefault } from './server-default-hint';
import { checkClient, clientBodyOf, clientHints } from './peer-client';
import { ServerCrumb } from './server-crumb';

export function PeerForm({ serverId }: { serverId: string }) {
  useTitle(t('peers.add'));
  const form = useForm('peer', { name: '', email: '', ip: '', ip6: '', allowInternet: false, dataLimitGiB: '0', expiresAt: '', publicKey: '',
    networks: '', dns: '', clientAllowedIPs: '', persistentKeepalive: '', mtu: '' });
  const submit = form.submit(async () => {
    const v = form.values;
    const body: Record<string, unknown> = { name: v.name, allowInternet: v.allowInternet, dataLimitGiB: limitValue(v.dataLimitGiB) };
    for (const k of ['email', 'ip', 'ip6', 'publicKey'] as const) if (v[k].trim()) body[k] = v[k].trim();
    if (v.expiresAt) body.expiresAt = fromLocalInput(v.expiresAt);
    // Only what was given: the rest is the server's default, as when the API is not told.
    for (const [k, value] of Object.entries(clientBodyOf(v))) if (value !== null) body[k] = value;
    const peer = await api<Peer>('POST', `/api/servers/${serverId}/peers`, body);
    notify(t('peerf.added', { name: peer.name || peer.ip }));
    navigate(href('peers', peer.id));
  }, (v) => ({ ...checkPeer(v), ...checkClient(v) }));
  const hints = clientHints();
  const defaults = useServerDefaults(serverId, form.values.allowInternet);
  return (
    <>
      <p class="crumbs"><a href={href()}>{t('nav.overview')}</a> / <ServerCrumb id={Number(serverId)} to={href('servers', serverId)} /> / {t('peerf.new')}</p>
      <h1>{t('peers.add')}</h1>
      <form onSubmit={submit} noValidate>
        <TextField form={form} name="name" label={t('f.name')} maxLength={64} hint={t('peerf.nameHint')} />
        <TextField form={form} name="email" label={t('f.email')} type="email" autoComplete="off" hint={t('peerf.emailHint')} />
        <Checkbox form={form} name="allowInternet" label={t('peerf.internet')}
          hint={t('peerf.internetHint')} />
        <TextField form={form} name="dataLimitGiB" label={limitLabel()} inputMode="decimal" hint={limitHint()} />
        <TextField form={form} name="expiresAt" label={t('peers.col.expires')} type="datetime-local" hint={expiryHint()} />
        <details>
          <summary>{t('f.more')}</summary>
          <TextField form={form} name="ip" label={t('peers.col.address')} placeholder="10.8.0.2" hint={t('peerf.ipHint')} />
          <TextField form={form} name="ip6" label={t('peerf.ip6')} placeholder="fd12:3456:789a:1::2"
            hint={t('peerf.ip6Hint')} />
          <TextField form={form} name="publicKey" label={t('peerf.publicKey')} hint={t('peerf.publicKeyHint')} />
          <TextField form={form} name="networks" label={t('client.networksLabel')} hint={hints.networks} />
          <TextField form={form} name="dns" label={t('client.dnsLabel')} hint={withDefault(hints.dns, defaults, 'dns')} />
          <TextField form={form} name="clientAllowedIPs" label={t('client.routesLabel')} hint={withDefault(hints.clientAllowedIPs, defaults, 'clientAllowedIPs')} />
          <TextField form={form} name="persistentKeepalive" label={t('client.keepaliveLabel')} inputMode="numeric" hint={withDefault(hints.persistentKeepalive, defaults, 'persistentKeepalive')} />
          <TextField form={form} name="mtu" label={t('client.mtuLabel')} inputMode="numeric" hint={withDefault(hints.mtu, defaults, 'mtu')} />
        </details>
        <FormError form={form} />
        <div class="buttons">
          <button type="submit" class="primary" disabled={form.busy}>{t('peerf.submit')}</button>
          <a class="button" href={href('servers', serverId)}>{t('f.cancel')}</a>
        </div>
      </form>
    </>
  );
}
