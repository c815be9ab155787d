// Webhook configurations as changes: create, update and delete through the runner (no
// kernel step). The rules on a hook's fields are checked on the record as it stands when
// the change is planned, not as it stood before the body arrived.
import { apiError } from '../error-registry';
import type { App } from '../app';
import type { NewWebhook, WebhookRecord } from '../store/webhooks';
import { badField } from './field-error';
import { mergeInput, withInitials } from '../resources/describe';
import { WEBHOOK } from '../resources/webhook';
import type { ChangeOptions } from './runner';

/** A webhook's fields as the operations take them; left out means "as it is" (or the default on create). */
export type WebhookInput = Partial<Omit<WebhookRecord, 'id' | 'serverId' | 'createdAt' | 'updatedAt'>>;

/** The rule that spans fields, checked on the record as it will be stored. */
export function checkTemplate(hook: Pick<WebhookRecord, 'template' | 'customBody'>): void {
  if (hook.template === 'custom' && hook.customBody.trim() === '') throw badField('customBody', 'is required when template is "custom"');
}

export function createWebhook(app: App, serverId: number, input: WebhookInput, opts?: ChangeOptions): Promise<WebhookRecord> {
  const now = app.now().toISOString();
  return app.runner.run('webhook.create', (store) => {
    if (!store.servers.get(serverId)) throw apiError('WGCP_SERVER_NOT_FOUND');
    if (input.url === undefined) throw badField('url', 'is required');
    // Left out: the description's initial value (enabled, verifying TLS, the default template).
    const draft = withInitials(WEBHOOK, { ...input, url: input.url, serverId, createdAt: now, updatedAt: now }) as NewWebhook;
    checkTemplate(draft);
    return { commit: ({ store }) => store.webhooks.insert(draft) };
  }, opts);
}

export function updateWebhook(app: App, id: number, input: WebhookInput, opts?: ChangeOptions): Promise<WebhookRecord> {
  return app.runner.run('webhook.update', (store) => {
    const current = store.webhooks.get(id);
    if (!current) throw apiError('WGCP_WEBHOOK_NOT_FOUND');
    const merged: WebhookRecord = { ...mergeInput<WebhookRecord, undefined>(WEBHOOK, current, input), updatedAt: app.now().toISOString() };
    checkTemplate(merged);
    return { commit: ({ store }) => { store.webhooks.update(merged); return merged; } };
  }, opts);
}

export function deleteWebhook(app: App, id: number, opts?: ChangeOptions): Promise<void> {
  return app.runner.run('webhook.delete', (store) => {
    if (!store.webhooks.get(id)) throw apiError('WGCP_WEBHOOK_NOT_FOUND');
    return { commit: ({ store }) => { store.webhooks.delete(id); } };
  }, opts);
}
