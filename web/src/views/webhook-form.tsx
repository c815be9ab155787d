// A webhook's fields, for adding one and for editing it. The secret is never shown: the
// API masks it, and sending the mask back keeps it.
import { api } from '../api';
import { Checkbox, FormError, Select, TextArea, TextField, useForm } from '../form';
import type { Webhook } from '../types';
import { t } from '../i18n';

/** The API's action codes; their words are the catalogue's (`actionWords`). */
export const ACTIONS: number[] = [1, 2, 3, 4, 5, 6, 7, 8, 9];
const actionWords = (code: number): string => [t('hook.a1'), t('hook.a2'), t('hook.a3'), t('hook.a4'), t('hook.a5'), t('hook.a6'), t('hook.a7'), t('hook.a8'), t('hook.a9')][code - 1] ?? String(code);

const MASK = '********';

function valuesOf(w?: Webhook) {
  const v: Record<string, string | boolean> = {
    name: w?.name ?? '', url: w?.url ?? '', isEnabled: w?.isEnabled ?? true, isGlobal: w?.isGlobal ?? false, verifySSL: w?.verifySSL ?? true,
    template: w?.template ?? 'default', customBody: w?.customBody ?? '', defaultPayload: w?.defaultPayload ?? '',
    customHeaders: w ? new TextDecoder().decode(new Uint8Array(w.customHeaders)) : '', secret: w?.secret ?? '',
  };
  for (const code of ACTIONS) v[`action${code}`] = w ? w.subscribedActions.includes(code) : false;
  return v;
}

export function WebhookForm({ serverId, hook, onSaved }: { serverId: number | string; hook?: Webhook; onSaved: (w: Webhook) => void }) {
  const form = useForm(hook ? `hook${hook.id}` : 'newhook', valuesOf(hook));
  const v = form.values;
  const submit = form.submit(async () => {
    const body: Record<string, unknown> = {
      name: v.name, url: String(v.url).trim(), isEnabled: v.isEnabled, isGlobal: v.isGlobal, verifySSL: v.verifySSL,
      template: v.template, customBody: v.customBody, defaultPayload: v.defaultPayload,
      subscribedActions: ACTIONS.filter((code) => v[`action${code}`]),
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
      <TextField form={form} name="name" label={t('f.name')} />
      <TextField form={form} name="url" label="URL" type="url" required placeholder="https://hooks.example.com/wgcp" />
      <Checkbox form={form} name="isEnabled" label={t('hook.enabled')} />
      <Checkbox form={form} name="isGlobal" label={t('hook.global')} />
      <Checkbox form={form} name="verifySSL" label={t('hook.verify')} />
      <fieldset>
        <legend>{t('hook.events')}</legend>
        <p class="hint">{t('hook.eventsHint')}</p>
        {ACTIONS.map((code) => <Checkbox key={code} form={form} name={`action${code}`} label={actionWords(code)} />)}
      </fieldset>
      <Select form={form} name="template" label={t('hook.body')} options={[['default', t('hook.default')], ['slack', 'Slack'], ['discord', 'Discord'], ['custom', t('hook.custom')]]} />
      {v.template === 'custom' && <TextArea form={form} name="customBody" label={t('hook.customBody')} hint={t('hook.customHint', { fields: '{{event}}, {{serverID}}, {{data.peer.name}}…' })} />}
      <details>
        <summary>{t('f.more')}</summary>
        <TextArea form={form} name="defaultPayload" label={t('hook.extra')} rows={3} hint={t('hook.extraHint')} />
        <TextArea form={form} name="customHeaders" label={t('hook.headers')} rows={3} hint={t('hook.headersHint', { example: '{"Authorization": "Bearer …"}' })} />
        <TextField form={form} name="secret" label={t('hook.secret')} type="password" autoComplete="new-password"
          hint={t('hook.secretHint', { header: 'X-Wgcp-Signature: sha256=<HMAC>' })} />
      </details>
      <FormError form={form} />
      <div class="buttons"><button type="submit" class="primary" disabled={form.busy}>{hook ? t('hook.save') : t('hook.submit')}</button></div>
    </form>
  );
}
