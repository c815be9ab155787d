// Webhook configurations of a server: create, list, read, update, delete. Delivering
// events to them is src/events/.
import createError from 'http-errors';
import type { App } from '../app';
import type { Route } from '../http/router';
import { created, noContent, ok } from '../http/reply';
import type { WebhookRecord } from '../store/webhooks';
import { guardFacts } from '../net/own-listeners';
import { parseId, required } from './fields';
import { presentWebhook } from '../views/present';
import { serverFromPath } from './lookups';
import { checkTemplate, parseWebhookInput } from './webhook-input';

export function findWebhook(app: App, idText: string): WebhookRecord {
  const hook = app.store.webhooks.get(parseId(idText, 'webhook'));
  if (!hook) throw createError(404, 'webhook not found');
  return hook;
}

export function webhookRoutes(app: App): Route[] {
  const { store } = app;
  return [
    {
      method: 'GET', path: '/api/servers/:id/webhooks', auth: 'control',
      handler: (ctx) => ok(store.webhooks.listByServer(serverFromPath(app, ctx.params.id).id).map(presentWebhook)),
    },
    {
      method: 'POST', path: '/api/servers/:id/webhooks', auth: 'control',
      async handler(ctx) {
        const server = serverFromPath(app, ctx.params.id);
        const input = parseWebhookInput(await ctx.body(), guardFacts());
        const now = app.now().toISOString();
        const draft = {
          serverId: server.id,
          name: input.name ?? '',
          url: required(input.url, 'url'),
          isEnabled: input.isEnabled ?? true,
          isGlobal: input.isGlobal ?? false,
          verifySSL: input.verifySSL ?? true,
          subscribedActions: input.subscribedActions ?? [],
          template: input.template ?? 'default',
          defaultPayload: input.defaultPayload ?? '',
          customBody: input.customBody ?? '',
          customHeaders: input.customHeaders ?? '',
          secret: input.secret ?? '',
          createdAt: now,
          updatedAt: now,
        };
        checkTemplate(draft.template, draft.customBody);
        const hook = store.tx(() => {
          if (!store.servers.get(server.id)) throw createError(404, 'server not found');
          return store.webhooks.insert(draft);
        });
        return created(presentWebhook(hook));
      },
    },
    {
      method: 'GET', path: '/api/webhooks/:id', auth: 'control',
      handler: (ctx) => ok(presentWebhook(findWebhook(app, ctx.params.id))),
    },
    {
      method: 'PUT', path: '/api/webhooks/:id', auth: 'control',
      async handler(ctx) {
        const id = findWebhook(app, ctx.params.id).id;
        const input = parseWebhookInput(await ctx.body(), guardFacts());
        // Merged over the record as it stands now, not as it stood before the body arrived.
        const next = store.tx(() => {
          const current = store.webhooks.get(id);
          if (!current) throw createError(404, 'webhook not found');
          const merged: WebhookRecord = { ...current, updatedAt: app.now().toISOString() };
          for (const [k, v] of Object.entries(input)) if (v !== undefined) (merged as unknown as Record<string, unknown>)[k] = v;
          checkTemplate(merged.template, merged.customBody);
          store.webhooks.update(merged);
          return merged;
        });
        return ok(presentWebhook(next));
      },
    },
    {
      method: 'DELETE', path: '/api/webhooks/:id', auth: 'control',
      handler(ctx) {
        const hook = findWebhook(app, ctx.params.id);
        store.tx(() => store.webhooks.delete(hook.id));
        return noContent();
      },
    },
  ];
}
