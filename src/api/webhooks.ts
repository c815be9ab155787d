// Webhook configurations of a server: create, list, read, update, delete. Delivering
// events to them is src/events/.
import createError from 'http-errors';
import type { App } from '../app';
import type { Route } from '../http/router';
import { created, noContent, ok } from '../http/reply';
import type { WebhookRecord } from '../store/webhooks';
import { guardFacts } from '../net/own-listeners';
import { parseId, required } from './fields';
import { presentWebhook } from './present';
import { findServer } from './servers';
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
      handler: (ctx) => ok(store.webhooks.listByServer(findServer(app, ctx.params.id).id).map(presentWebhook)),
    },
    {
      method: 'POST', path: '/api/servers/:id/webhooks', auth: 'control',
      async handler(ctx) {
        const server = findServer(app, ctx.params.id);
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
        const before = findWebhook(app, ctx.params.id);
        const input = parseWebhookInput(await ctx.body(), guardFacts());
        const next: WebhookRecord = { ...before, updatedAt: app.now().toISOString() };
        for (const [k, v] of Object.entries(input)) if (v !== undefined) (next as unknown as Record<string, unknown>)[k] = v;
        checkTemplate(next.template, next.customBody);
        store.tx(() => {
          if (!store.webhooks.get(before.id)) throw createError(404, 'webhook not found');
          store.webhooks.update(next);
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
