// What webhook and mail delivery write of their own outbox rows: a row sent, retried or
// given up on, and the attempt logged. Changes of the runner without a kernel step, an event
// or an audit row (bookkeeping, like a usage cycle's counting), so that they never write
// beside a change and wait their turn like any other.
import type { App } from '../app';
import type { DeliveryRecord } from '../store/outbox';

/** An outbox row after an attempt: gone (sent, or given up on) or due again at `nextAttemptAt`. */
export type Settled = { remove: true } | { remove: false; attempts: number; nextAttemptAt: number };

export function settleWebhookItem(app: App, itemId: number, webhookId: number, settled: Settled, attempt?: Omit<DeliveryRecord, 'id'>): Promise<void> {
  return app.runner.run('webhook.delivery', () => ({
    commit({ store }) {
      if (settled.remove) store.outbox.remove(itemId);
      else store.outbox.reschedule(itemId, settled.attempts, settled.nextAttemptAt);
      // A webhook deleted while its item was being sent keeps no log.
      if (attempt && store.webhooks.get(webhookId)) store.outbox.logAttempt(attempt);
    },
    audit: false,
  }));
}

/** A test send's attempt in the webhook's log (it has no outbox row). */
export function logTestDelivery(app: App, attempt: Omit<DeliveryRecord, 'id'>): Promise<void> {
  return app.runner.run('webhook.test-delivery', () => ({
    commit({ store }) { if (store.webhooks.get(attempt.webhookId)) store.outbox.logAttempt(attempt); },
    audit: false,
  }));
}

export function settleMailItem(app: App, itemId: number, settled: Settled): Promise<void> {
  return app.runner.run('mail.delivery', () => ({
    commit({ store }) {
      if (settled.remove) store.mailOutbox.remove(itemId);
      else store.mailOutbox.reschedule(itemId, settled.attempts, settled.nextAttemptAt);
    },
    audit: false,
  }));
}
