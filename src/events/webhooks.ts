// Webhook delivery through the SQLite outbox. An event is written to the outbox for each
// webhook that hears it in the transaction of its change (events/bus.ts), then sent in the
// background: up to 5 attempts
// with exponential backoff, each logged. Pending items survive a restart because the
// outbox, not memory, is the queue; delivery is at least once (X-Wgcp-Delivery lets a
// receiver drop repeats).
import type { App } from '../app';
import type { WebhookRecord } from '../store/webhooks';
import type { OutboxItem } from '../store/outbox';
import type { WgcpEvent } from './bus';
import { renderRequest, type Envelope } from './webhook-render';
import { logTestDelivery, settleWebhookItem, type Settled } from '../ops/deliveries';
import { sendWebhook, WEBHOOK_TIMEOUT_MS, type SendResult } from './webhook-send';

export const MAX_ATTEMPTS = 5;
export const DEFAULT_RETRY_BASE_MS = 2000;

/** Wait after the n-th failed attempt: base, 2·base, 4·base, 8·base. */
export function backoffMs(failedAttempts: number, baseMs: number): number {
  return baseMs * 2 ** (failedAttempts - 1);
}

export { hears } from './bus';

export interface DispatcherOptions { retryBaseMs?: number; concurrency?: number; timeoutMs?: number }

export class WebhookDispatcher {
  private readonly inFlight = new Map<number, Promise<void>>();
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private readonly retryBaseMs: number;
  private readonly concurrency: number;
  private readonly timeoutMs: number;

  constructor(private readonly app: App, opts: DispatcherOptions = {}) {
    this.retryBaseMs = opts.retryBaseMs ?? DEFAULT_RETRY_BASE_MS;
    this.concurrency = opts.concurrency ?? 8;
    this.timeoutMs = opts.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
  }

  /** Bus listener: the event's outbox rows were committed with its change; send them now. */
  onEvent(_e: WgcpEvent): void { this.kick(); }

  /** Starts (or resumes after a restart) working through the outbox. */
  start(): void { this.kick(); }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await Promise.allSettled([...this.inFlight.values()]);
  }

  private kick(): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.pump(), 0);
    this.timer.unref();
  }

  private pump(): void {
    this.timer = null;
    if (this.stopped) return;
    const free = this.concurrency - this.inFlight.size;
    if (free > 0) {
      const due = this.app.store.outbox.due(Date.now(), free + this.inFlight.size).filter((i) => !this.inFlight.has(i.id)).slice(0, free);
      for (const item of due) {
        const p = this.attempt(item).catch(async (err) => {
          this.app.log.error('webhook delivery step failed', { webhookID: item.webhookId, error: err instanceof Error ? err.message : String(err) });
          await this.pushBack(item);
        }).finally(() => { this.inFlight.delete(item.id); this.kick(); });
        this.inFlight.set(item.id, p);
      }
    }
    this.planNext();
  }

  /** Sleeps until the earliest pending item falls due (at most a minute, in case of clock jumps). */
  private planNext(): void {
    if (this.stopped || this.timer) return;
    // Items being sent are left out: their end kicks the pump anyway.
    const next = this.app.store.outbox.nextDueAt([...this.inFlight.keys()]);
    if (next === null) return;
    const wait = Math.min(Math.max(next - Date.now(), 0), 60_000);
    if (wait === 0 && this.inFlight.size >= this.concurrency) return;
    this.timer = setTimeout(() => this.pump(), wait);
    this.timer.unref();
  }

  /** After an unexpected failure the item counts as an attempt and waits like one, so it can never spin. */
  private async pushBack(item: OutboxItem): Promise<void> {
    const attempt = item.attempts + 1;
    try {
      await settleWebhookItem(this.app, item.id, item.webhookId, this.settled(attempt, attempt >= MAX_ATTEMPTS));
    } catch { /* the database itself is failing: the next pump tries again after its own delay */ }
  }

  /** Where an item stands after its attempt-th attempt: gone when it was the last, else due after its back-off. */
  private settled(attempt: number, last: boolean): Settled {
    return last ? { remove: true } : { remove: false, attempts: attempt, nextAttemptAt: Date.now() + backoffMs(attempt, this.retryBaseMs) };
  }

  private async attempt(item: OutboxItem): Promise<void> {
    const { store, log } = this.app;
    const hook = store.webhooks.get(item.webhookId);
    if (!hook) { await settleWebhookItem(this.app, item.id, item.webhookId, { remove: true }); return; }
    const attempt = item.attempts + 1;
    const result = hook.isEnabled
      ? await sendWebhook(hook.url, renderRequest(hook, JSON.parse(item.envelope) as Envelope, String(item.id)), hook.verifySSL, this.timeoutMs)
      : { ok: false, httpStatus: null, error: 'webhook is disabled; delivery dropped', durationMs: 0 };
    const last = result.ok || !hook.isEnabled || attempt >= MAX_ATTEMPTS;
    const outcome = result.ok ? 'delivered' : last ? 'failed' : 'retrying';
    if (this.stopped && !result.ok) return; // shutting down: the item stays due and is tried after the restart
    await settleWebhookItem(this.app, item.id, item.webhookId, this.settled(attempt, last), {
      webhookId: item.webhookId, outboxId: item.id, event: item.event, attempt, outcome,
      httpStatus: result.httpStatus, error: result.error, durationMs: result.durationMs, at: new Date().toISOString(),
    });
    if (outcome === 'failed') log.warn('webhook delivery failed for good', { webhookID: item.webhookId, event: item.event, attempts: attempt, error: result.error });
    else if (outcome === 'retrying') log.debug('webhook delivery will be retried', { webhookID: item.webhookId, attempt, error: result.error });
  }
}

/** Sends a test event to one webhook once, now, whatever its subscriptions, and logs the attempt. */
export async function sendTestEvent(app: App, hook: WebhookRecord, timeoutMs = WEBHOOK_TIMEOUT_MS): Promise<SendResult> {
  const env: Envelope = {
    action: 0, event: 'test', serverID: hook.serverId, timestamp: app.now().toISOString(),
    data: { message: 'wgcp test event', webhook: { id: hook.id, name: hook.name } },
  };
  const result = await sendWebhook(hook.url, renderRequest(hook, env, `test-${Date.now()}`), hook.verifySSL, timeoutMs);
  await logTestDelivery(app, {
    webhookId: hook.id, outboxId: null, event: 'test', attempt: 1, outcome: 'test',
    httpStatus: result.httpStatus, error: result.error, durationMs: result.durationMs, at: new Date().toISOString(),
  });
  return result;
}
