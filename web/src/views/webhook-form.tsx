// A webhook's fields, for adding one and for editing it. The secret is never shown: the
// API masks it, and sending the mask back keeps it.
import { api } from '../api';
import { Checkbox, FormError, Select, TextArea, TextField, useForm } from '../form';
import type { Webhook } from '../types';

export const ACTIONS: [number, string][] = [
  [1, 'Peer created'], [2, 'Peer updated'], [3, 'Peer deleted'], [4, 'Peer restricted (data limit)'],
  [5, 'Peer expired'], [6, 'Device provisioned'], [7, 'Device suspended'], [8, 'Server changed'], [9, 'Kernel drift repaired'],
];

const MASK = '********';

function valuesOf(w?: Webhook) {
  const v: Record<string, string | boolean> = {
    name: w?.name ?? '', url: w?.url ?? '', isEnabled: w?.isEnabled ?? true, isGlobal: w?.isGlobal ?? false, verifySSL: w?.verifySSL ?? true,
    template: w?.template ?? 'default', customBody: w?.customBody ?? '', defaultPayload: w?.defaultPayload ?? '',
    customHeaders: w ? new TextDecoder().decode(new Uint8Array(w.customHeaders)) : '', secret: w?.secret ?? '',
  };
  for (const [code] of ACTIONS) v[`action${code}`] = w ? w.subscribedActions.includes(code) : false;
  return v;
}

export function WebhookForm({ serverId, hook, onSaved }: { serverId: number | string; hook?: Webhook; onSaved: (w: Webhook) => void }) {
  const form = useForm(hook ? `hook${hook.id}` : 'newhook', valuesOf(hook));
  const v = form.values;
  const submit = form.submit(async () => {
    const body: Record<string, unknown> = {
      name: v.name, url: String(v.url).trim(), isEnabled: v.isEnabled, isGlobal: v.isGlobal, verifySSL: v.verifySSL,
      template: v.template, customBody: v.customBody, defaultPayload: v.defaultPayload,
      subscribedActions: ACTIONS.filter(([code]) => v[`action${code}`]).map(([code]) => code),
    };
    // The API reads custom headers as a JSON object; anything else it refuses, naming the field.
    const headers = String(v.customHeaders).trim();
    try { body.customHeaders = headers ? JSON.parse(headers) : {}; } catch { body.customHeaders = [...new TextEncoder().encode(headers)]; }
    if (v.secret !== MASK) body.secret = v.secret;
    const saved = await api<Webhook>(hook ? 'PUT' : 'POST', hook ? `/api/webhooks/${hook.id}` : `/api/servers/${serverId}/webhooks`, body);
    onSaved(saved);
    if (!hook) form.reset(valuesOf());
  });
  return (
    <form onSubmit={submit} noValidate>
      <TextField form={form} name="name" label="Name" />
      <TextField form={form} name="url" label="URL" type="url" required placeholder="https://hooks.example.com/wgcp" />
      <Checkbox form={form} name="isEnabled" label="Enabled" />
      <Checkbox form={form} name="isGlobal" label="Every server's events, not only this server's" />
      <Checkbox form={form} name="verifySSL" label="Check the receiver's TLS certificate" />
      <fieldset>
        <legend>Events</legend>
        <p class="hint">None ticked: every event.</p>
        {ACTIONS.map(([code, text]) => <Checkbox key={code} form={form} name={`action${code}`} label={text} />)}
      </fieldset>
      <Select form={form} name="template" label="Body" options={[['default', 'default: the JSON envelope'], ['slack', 'Slack'], ['discord', 'Discord'], ['custom', 'custom: my own body']]} />
      {v.template === 'custom' && <TextArea form={form} name="customBody" label="Custom body" hint="{{event}}, {{serverID}}, {{data.peer.name}}… are filled in." />}
      <details>
        <summary>More settings</summary>
        <TextArea form={form} name="defaultPayload" label="Extra fields" rows={3} hint="A JSON object merged into the default envelope." />
        <TextArea form={form} name="customHeaders" label="Custom headers" rows={3} hint='A JSON object, such as {"Authorization": "Bearer …"}.' />
        <TextField form={form} name="secret" label="Signing secret" type="password" autoComplete="new-password"
          hint="Signs each body: X-Wgcp-Signature: sha256=<HMAC>. Left as it is, the stored secret stays." />
      </details>
      <FormError form={form} />
      <div class="buttons"><button type="submit" class="primary" disabled={form.busy}>{hook ? 'Save webhook' : 'Add webhook'}</button></div>
    </form>
  );
}
