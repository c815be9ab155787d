// Add a server, or edit one (#/servers/{id}/edit). Name, endpoint and mode are needed; the
// rest has defaults the daemon picks (interface wgcp<id>, the next free 10.<n>.0.1/24, the
// endpoint's port). Under "More settings" also what a new peer inherits (server-defaults.ts):
// the client's DNS, routes, keepalive and MTU, and lanAccess.
import { useEffect } from 'preact/hooks';
import { api, get } from '../api';
import { cidr4, cidr6, endpoint, problems, wholeNumber } from '../checks';
import { checkDefaults, defaultsBodyOf, defaultValuesOf, NO_DEFAULTS } from './server-defaults';
import { Checkbox, FormError, Select, TextField, toInt, useForm } from '../form';
import { LoadError, useLoad, useTitle } from '../load';
import { notify } from '../notice';
import { href, navigate } from '../router';
import { t } from '../i18n';
import type { Server } from '../types';
import { ServerCrumb } from './server-crumb';

const EMPTY = { name: '', endpoint: '', mode: 'forward', interface: '', address: '', address6: '', ipv4Only: false, listenPort: '', ...NO_DEFAULTS };
type ServerValues = typeof EMPTY;

const check = (v: ServerValues) => problems({
  name: !v.name.trim() && t('serverf.blank'),
  endpoint: endpoint(v.endpoint),
  address: v.address.trim() && cidr4(v.address),
  address6: !v.ipv4Only && v.address6.trim() && cidr6(v.address6),
  listenPort: v.listenPort.trim() && wholeNumber(v.listenPort, 1, 65535),
  ...checkDefaults(v),
});

export function ServerForm({ id }: { id?: string }) {
  useTitle(id ? t('serverf.edit') : t('overview.addServer'));
  const form = useForm('server', EMPTY);
  const loaded = useLoad(async () => (id ? get<Server>(`/api/servers/${id}?peers=none`) : undefined), [id]);
  useEffect(() => {
    const s = loaded.data;
    if (s) {
      form.reset({ name: s.name, endpoint: s.endpoint, mode: s.mode, interface: s.interface, address: s.address, address6: s.address6 ?? '',
        ipv4Only: s.address6 === null, listenPort: String(s.listenPort), ...defaultValuesOf(s) });
    }
  }, [loaded.data]);

  const submit = form.submit(async () => {
    const v = form.values;
    const body: Record<string, unknown> = { name: v.name, endpoint: v.endpoint, mode: v.mode };
    // Left empty: the daemon's default on create, unchanged on edit (an empty MTU clears it).
    for (const k of ['interface', 'address'] as const) if (String(v[k]).trim()) body[k] = String(v[k]).trim();
    // IPv4 only is address6 null; an address typed sets it; empty keeps the default (a unique local /64) or the one set.
    if (v.ipv4Only) body.address6 = null; else if (v.address6.trim()) body.address6 = v.address6.trim();
    if (String(v.listenPort).trim()) body.listenPort = toInt(v.listenPort);
    Object.assign(body, defaultsBodyOf(v, Boolean(id)));
    // An edit's answer leaves the peers out: at 10,000 peers the whole server is 4 MB.
    const saved = await api<Server>(id ? 'PUT' : 'POST', id ? `/api/servers/${id}?peers=none` : '/api/servers', body);
    notify(t(id ? 'serverf.saved' : 'serverf.added', { name: saved.name }));
    navigate(href('servers', saved.id));
  }, check);

  return (
    <>
      <p class="crumbs"><a href={href()}>{t('nav.overview')}</a>{id && <> / <ServerCrumb id={Number(id)} to={href('servers', id)} /></>}</p>
      <h1>{id ? t('serverf.edit') : t('overview.addServer')}</h1>
      <LoadError error={loaded.error} code={loaded.code} />
      <form onSubmit={submit} noValidate>
        <TextField form={form} name="name" label={t('f.name')} required maxLength={64} />
        <TextField form={form} name="endpoint" label={t('overview.col.endpoint')} required placeholder="vpn.example.com:51820"
          hint={t('serverf.endpointHint')} />
        <Select form={form} name="mode" label={t('overview.col.mode')} options={[['forward', t('serverf.forward')], ['standalone', t('serverf.standalone')]]} />
        <details>
          <summary>{t('f.more')}</summary>
          <TextField form={form} name="interface" label={t('serverf.interface')} hint={t('serverf.interfaceHint')} />
          <TextField form={form} name="address" label={t('serverf.address')} placeholder="10.8.0.1/24" hint={t('serverf.addressHint')} />
          <Checkbox form={form} name="ipv4Only" label={t('serverf.ipv4Only')} />
          <TextField form={form} name="address6" label={t('serverf.address6')} placeholder="fd12:3456:789a:1::1/64" disabled={form.values.ipv4Only}
            hint={t('serverf.address6Hint')} />
          <TextField form={form} name="listenPort" label={t('serverf.port')} inputMode="numeric" hint={t('serverf.portHint')} />
          <fieldset>
            <legend>{t('serverf.clientDefaults')}</legend>
            <TextField form={form} name="dns" label={t('client.dnsLabel')} hint={t('serverf.dnsHint')} />
            <TextField form={form} name="clientAllowedIPs" label={t('client.routesLabel')} hint={t('serverf.routesHint')} />
            <TextField form={form} name="persistentKeepalive" label={t('client.keepaliveLabel')} inputMode="numeric" placeholder="25" hint={t('serverf.keepaliveHint')} />
            <TextField form={form} name="mtu" label={t('client.mtuLabel')} inputMode="numeric" hint={t('serverf.mtuHint')} />
            <TextField form={form} name="lanAccess" label={t('reach.lanAccess')} hint={t('reach.lanAccessHint')} />
          </fieldset>
        </details>
        <FormError form={form} />
        <div class="buttons">
          <button type="submit" class="primary" disabled={form.busy}>{id ? t('f.save') : t('serverf.submit')}</button>
          <a class="button" href={id ? href('servers', id) : href()}>{t('f.cancel')}</a>
        </div>
      </form>
    </>
  );
}

