// Add a peer to a server. Only a name is usual: the daemon picks the addresses and makes the
// keys. Saved, the peer's page opens with its QR code.
import { api } from '../api';
import { fromLocalInput } from '../format';
import { Checkbox, FormError, TextField, toInt, useForm } from '../form';
import { useTitle } from '../load';
import { notify } from '../notice';
import { href, navigate } from '../router';
import type { Peer } from '../types';
import { checkPeer, EXPIRY_HINT, LIMIT_HINT, LIMIT_LABEL } from './peer-fields';
import { ServerCrumb } from './server-crumb';

export function PeerForm({ serverId }: { serverId: string }) {
  useTitle('Add a peer');
  const form = useForm('peer', { name: '', email: '', ip: '', ip6: '', allowInternet: false, dataLimitGB: '0', expiresAt: '', publicKey: '' });
  const submit = form.submit(async () => {
    const v = form.values;
    const body: Record<string, unknown> = { name: v.name, allowInternet: v.allowInternet, dataLimitGB: toInt(v.dataLimitGB || '0') };
    for (const k of ['email', 'ip', 'ip6', 'publicKey'] as const) if (v[k].trim()) body[k] = v[k].trim();
    if (v.expiresAt) body.expiresAt = fromLocalInput(v.expiresAt);
    const peer = await api<Peer>('POST', `/api/servers/${serverId}/peers`, body);
    notify(`Peer ${peer.name || peer.ip} added`);
    navigate(href('peers', peer.id));
  }, (v) => checkPeer(v));
  return (
    <>
      <p class="crumbs"><a href={href()}>Overview</a> / <ServerCrumb id={Number(serverId)} to={href('servers', serverId)} /> / New peer</p>
      <h1>Add a peer</h1>
      <form onSubmit={submit} noValidate>
        <TextField form={form} name="name" label="Name" maxLength={64} hint="Who or what this is: a phone, a laptop." />
        <TextField form={form} name="email" label="E-mail" type="email" autoComplete="off" hint="Optional: where its configuration can be mailed." />
        <Checkbox form={form} name="allowInternet" label="Internet access through this router"
          hint="Off unless ticked, as in the API: a new peer reaches the tunnel only until it is given more." />
        <TextField form={form} name="dataLimitGB" label={LIMIT_LABEL} inputMode="numeric" hint={LIMIT_HINT} />
        <TextField form={form} name="expiresAt" label="Expires" type="datetime-local" hint={EXPIRY_HINT} />
        <details>
          <summary>More settings</summary>
          <TextField form={form} name="ip" label="Address" placeholder="10.8.0.2" hint="Default: the next free address of the server's subnet." />
          <TextField form={form} name="ip6" label="IPv6 address" placeholder="fd12:3456:789a:1::2"
            hint="Default: the next free address of the server's IPv6 prefix (none when the server is IPv4 only)." />
          <TextField form={form} name="publicKey" label="Public key" hint="Only for a peer that made its own keys; then wgcp has no QR code for it, only a .conf template." />
        </details>
        <FormError form={form} />
        <div class="buttons">
          <button type="submit" class="primary" disabled={form.busy}>Add peer</button>
          <a class="button" href={href('servers', serverId)}>Cancel</a>
        </div>
      </form>
    </>
  );
}
