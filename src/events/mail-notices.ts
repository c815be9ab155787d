// The mail consumer of the bus: a notice to the peer's own address when it is restricted
// for its data limit or has expired, if SMTP is enabled. Sending runs in the background;
// a failure is logged with the SMTP error, never dropped silently.
import type { App } from '../app';
import type { WgcpEvent } from './bus';
import { noticeMessage, sendMail, type NoticeKind } from './mail';

interface PeerShown { id: number; name: string; ip: string; email: string; dataLimitGB: number }

export class MailNotices {
  private readonly pending = new Set<Promise<void>>();
  constructor(private readonly app: App) {}

  onEvent(e: WgcpEvent): void {
    if (e.event !== 'peerRestricted' && e.event !== 'peerExpired') return;
    const peer = e.data.peer as PeerShown | undefined;
    const smtp = this.app.store.smtp.get();
    if (!smtp.enabled || !peer || !peer.email) return;
    const kind: NoticeKind = e.event;
    const p = sendMail(smtp, noticeMessage(kind, peer, peer.email)).then(
      () => this.app.log.info('notice mailed', { event: kind, peerID: peer.id }),
      (err: Error) => this.app.log.error('mailing a notice failed', { event: kind, peerID: peer.id, error: err.message }),
    ).finally(() => this.pending.delete(p));
    this.pending.add(p);
  }

  /** Lets mails already handed to SMTP finish before the daemon exits. */
  async stop(): Promise<void> { await Promise.allSettled([...this.pending]); }
}
