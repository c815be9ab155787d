// Mail notices from their outbox: a notice to the peer's own address when it is restricted
// for its data limit or has expired (the row is written with the change, events/bus.ts).
// Sent in the background with the SMTP settings of the moment; a failure is logged with the
// SMTP error and tried again with back-off, up to 5 attempts; the row stays until then, so
// a restart sends what was not sent.
import type { App } from '../app';
import type { MailItem } from '../store/mail-outbox';
import type { WgcpEvent } from './bus';
import { noticeMessage, sendMail, type NoticeKind } from './mail';
import { backoffMs } from './webhooks';
import { settleMailItem } from '../ops/deliveries';

interface PeerShown { id: number; name: string; ip: string; email: string; dataLimitGB: number; dataLimitGiB?: number }

export const MAIL_ATTEMPTS = 5;
const RETRY_BASE_MS = 30_000;

export class MailNotices {
  private readonly pending = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private busy = false;

  constructor(private readonly app: App, private readonly retryBaseMs = RETRY_BASE_MS) {}

  /** Bus listener: a notice's row was committed with its change; send it now. */
  onEvent(_e: WgcpEvent): void { this.kick(); }

  /** Starts (or resumes after a restart) working through the outbox. */
  start(): void { this.kick(); }

  /** Lets mails already handed to SMTP finish before the daemon exits. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await Promise.allSettled([...this.pending]);
  }

  private kick(delayMs = 0): void {
    if (this.stopped || this.busy) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => { this.timer = null; void this.pump(); }, delayMs);
    this.timer.unref();
  }

  private async pump(): Promise<void> {
    if (this.stopped) return;
    this.busy = true;
    try {
      for (const item of this.app.store.mailOutbox.due(Date.now(), 20)) {
        if (this.stopped) return;
        const p = this.send(item);
        this.pending.add(p);
        await p.finally(() => this.pending.delete(p));
      }
    } finally {
      this.busy = false;
    }
    const next = this.app.store.mailOutbox.nextDueAt();
    if (next !== null) this.kick(Math.min(Math.max(next - Date.now(), 0), 60_000));
  }

  private async send(item: MailItem): Promise<void> {
    const { store, log } = this.app;
    const e = JSON.parse(item.envelope) as WgcpEvent;
    const peer = e.data.peer as PeerShown | undefined;
    const smtp = store.smtp.get();
    const kind = e.event as NoticeKind;
    if (!smtp.enabled || !peer || !peer.email) { await settleMailItem(this.app, item.id, { remove: true }); return; }
    let error: string;
    try {
      await sendMail(smtp, noticeMessage(kind, peer, peer.email, e.data.change));
      await settleMailItem(this.app, item.id, { remove: true });
      log.info('notice mailed', { event: kind, peerID: peer.id });
      return;
    } catch (err) {
      if (this.stopped) return; // shutting down: the row stays due and is sent after the restart
      error = err instanceof Error ? err.message : String(err);
    }
    const attempts = item.attempts + 1;
    if (attempts >= MAIL_ATTEMPTS) {
      await settleMailItem(this.app, item.id, { remove: true });
      log.error('mailing a notice failed for good', { event: kind, peerID: peer.id, attempts, error });
    } else {
      await settleMailItem(this.app, item.id, { remove: false, attempts, nextAttemptAt: Date.now() + backoffMs(attempts, this.retryBaseMs) });
      log.error('mailing a notice failed; it is tried again', { event: kind, peerID: peer.id, attempts, error });
    }
  }
}
