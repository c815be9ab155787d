// A webhook's delivery log (recent attempts with their outcome, HTTP status and error) and
// a test event sent at once.
import { apiError } from '../error-registry';
import type { App } from '../app';
import type { Route } from '../http/router';
import { ok } from '../http/reply';
import type { DeliveryRecord } from '../store/outbox';
import { sendTestEvent } from '../events/webhooks';
import { findWebhook } from './webhooks';

export function presentDelivery(d: DeliveryRecord) {
  return {
    id: d.id, webhookID: d.webhookId, deliveryID: d.outboxId, event: d.event, attempt: d.attempt,
    outcome: d.outcome, httpStatus: d.httpStatus, error: d.error, durationMs: d.durationMs, timestamp: d.at,
  };
}

export function deliveryRoutes(app: App): Route[] {
  return [
    {
      method: 'GET', path: '/api/webhooks/:id/deliveries', auth: 'control', role: 'viewer',
      doc: () => ({ summary: 'Recent delivery attempts of a webhook (the newest 100, by id)', answers: { 200: { description: 'attempts', shape: ['Delivery'] } }, errors: [404] }),
      handler(ctx) {
        const hook = findWebhook(app, ctx.params.id);
        return ok(app.store.outbox.attemptsOf(hook.id).map(presentDelivery));
      },
    },
    {
      method: 'POST', path: '/api/webhooks/:id/test', auth: 'control', role: 'admin',
      doc: () => ({
        summary: 'Send a test event to the webhook now (whatever it subscribes to)', errors: [404, [502, 'the receiver failed or answered other than 2xx; the error says how']],
        answers: { 200: { description: 'the receiver accepted it', shape: { type: 'object', properties: { delivered: { type: 'boolean' }, httpStatus: { type: 'integer', format: 'int64' }, durationMs: { type: 'integer', format: 'int64' } } } } },
      }),
      async handler(ctx) {
        const hook = findWebhook(app, ctx.params.id);
        const result = await sendTestEvent(app, hook);
        // The receiver's failure is this request's failure: 502 with what went wrong.
        if (!result.ok) throw apiError('WGCP_WEBHOOK_TEST_FAILED', { reason: result.error });
        return ok({ delivered: true, httpStatus: result.httpStatus, durationMs: result.durationMs });
      },
    },
  ];
}
