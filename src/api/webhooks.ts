// Webhook configurations of a server: create, list, read, update, delete (the changes are
// src/ops/webhooks.ts). The body is read by the webhook's description (resources/webhook.ts),
// every bad field at once; what a role sees of a webhook is the description's too.
// Delivering events to them is src/events/.
import { apiError } from '../error-registry';
import type { App } from '../app';
import type { RequestContext, Route } from '../http/router';
import { created, noContent, ok } from '../http/reply';
import type { WebhookRecord } from '../store/webhooks';
import { guardFacts } from '../net/own-listeners';
import { parseInput } from '../resources/describe';
import { WEBHOOK } from '../resources/webhook';
import { parseId } from './fields';
import { presentWebhook } from '../views/present';
import { serverFromPath } from './lookups';
import { createWebhook, deleteWebhook, updateWebhook, type WebhookInput } from '../ops/webhooks';

export function findWebhook(app: App, idText: string): WebhookRecord {
  const hook = app.store.webhooks.get(parseId(idText, 'webhook'));
  if (!hook) throw apiError('WGCP_WEBHOOK_NOT_FOUND');
  return hook;
}

/** The body's fields; a URL is checked against wgcpd's listeners and the host's addresses. */
async function webhookInput(app: App, ctx: RequestContext): Promise<WebhookInput> {
  return parseInput(WEBHOOK, await ctx.body(), { now: app.now(), guard: guardFacts() });
}

export function webhookRoutes(app: App): Route[] {
  const { store } = app;
  return [
    {
      method: 'GET', path: '/api/servers/:id/webhooks', auth: 'control', role: 'viewer',
      doc: () => ({ summary: 'List webhooks', answers: { 200: { description: 'webhooks by id', shape: ['Webhook'] } }, errors: [404] }),
      handler: (ctx) => ok(store.webhooks.listByServer(serverFromPath(app, ctx.params.id).id).map((w) => presentWebhook(w, ctx.actor?.role))),
    },
    {
      method: 'POST', path: '/api/servers/:id/webhooks', auth: 'control', role: 'admin',
      doc: () => ({ summary: 'Create a webhook', body: 'Webhook', answers: { 201: { description: 'created', shape: 'Webhook' } }, errors: [400, 404, 413] }),
      async handler(ctx) {
        const server = serverFromPath(app, ctx.params.id);
        const input = await webhookInput(app, ctx);
        return created(presentWebhook(await createWebhook(app, server.id, input, { actor: ctx.actor }), ctx.actor?.role));
      },
    },
    {
      method: 'GET', path: '/api/webhooks/:id', auth: 'control', role: 'viewer',
      doc: () => ({ summary: 'Read a webhook', answers: { 200: { description: 'the webhook', shape: 'Webhook' } }, errors: [404] }),
      handler: (ctx) => ok(presentWebhook(findWebhook(app, ctx.params.id), ctx.actor?.role)),
    },
    {
      method: 'PUT', path: '/api/webhooks/:id', auth: 'control', role: 'admin',
      doc: () => ({ summary: 'Update a webhook', body: 'Webhook', answers: { 200: { description: 'updated', shape: 'Webhook' } }, errors: [400, 404, 413] }),
      async handler(ctx) {
        const id = findWebhook(app, ctx.params.id).id;
        const input = await webhookInput(app, ctx);
        return ok(presentWebhook(await updateWebhook(app, id, input, { actor: ctx.actor }), ctx.actor?.role));
      },
    },
    {
      method: 'DELETE', path: '/api/webhooks/:id', auth: 'control', role: 'admin',
      doc: () => ({ summary: 'Delete a webhook', answers: { 204: { description: 'deleted' } }, errors: [404] }),
      async handler(ctx) {
        await deleteWebhook(app, findWebhook(app, ctx.params.id).id, { actor: ctx.actor });
        return noContent();
      },
    },
  ];
}
