// Events as a transactional outbox. The change runner records each event inside the
// transaction of the change that causes it: one outbox row for every webhook that hears
// it and one for a mail notice, so an event is stored exactly when its change is, and a
// change whose event cannot be written fails with it. Once committed, the events are
// announced to the live consumers (the stream, and the webhook and mail senders' kick).
// A failing consumer never reaches the runner.
import type { Logger } from '../log';
import type { Store } from '../store/store';
import type { WebhookRecord } from '../store/webhooks';
import { withDeviceIdPrefixes } from './device-redaction';

export const ACTIONS = {
  peerCreated: 1,
  peerUpdated: 2,
  peerDeleted: 3,
  peerRestricted: 4,
  peerExpired: 5,
  deviceProvisioned: 6,
  deviceSuspended: 7,
  serverChanged: 8,
} as const;

export type EventName = keyof typeof ACTIONS;

export interface WgcpEvent {
  action: number;
  event: EventName;
  serverID: number;
  timestamp: string;
  data: Record<string, unknown>;
}

export type EventListener = (event: WgcpEvent) => void;

/** Events that mail the peer's own address a notice, when SMTP is on and the peer has one. */
export const MAILED_EVENTS: ReadonlySet<EventName> = new Set<EventName>(['peerRestricted', 'peerExpired']);

/** Whether a webhook hears an event (its server, or global, is checked by the query). */
export function hears(hook: Pick<WebhookRecord, 'subscribedActions' | 'isEnabled'>, e: Pick<WgcpEvent, 'action' | 'event' | 'data'>): boolean {
  if (!hook.isEnabled) return false;
  if (hook.subscribedActions.length > 0 && !hook.subscribedActions.includes(e.action)) return false;
  // The contract: peer created is announced for standalone servers only.
  if (e.event === 'peerCreated' && e.data.mode !== 'standalone') return false;
  return true;
}

function wantsMail(store: Store, e: WgcpEvent): boolean {
  if (!MAILED_EVENTS.has(e.event)) return false;
  const peer = e.data.peer as { email?: unknown } | undefined;
  return typeof peer?.email === 'string' && peer.email !== '' && store.smtp.get().enabled;
}

export class EventBus {
  private readonly listeners = new Set<EventListener>();
  constructor(private readonly log: Logger, private readonly now: () => Date = () => new Date()) {}

  subscribe(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Inside the change's transaction: the event (a device named only by its id's prefix)
   * and its outbox rows. A throw here fails the change.
   */
  record(store: Store, event: EventName, serverID: number, data: Record<string, unknown>): WgcpEvent {
    const at = this.now();
    const e: WgcpEvent = { action: ACTIONS[event], event, serverID, timestamp: at.toISOString(), data: withDeviceIdPrefixes(data) };
    const hooks = store.webhooks.listenersOf(serverID).filter((h) => hears(h, e));
    const envelope = hooks.length > 0 || MAILED_EVENTS.has(event) ? JSON.stringify(e) : '';
    const due = Date.now();
    for (const h of hooks) store.outbox.enqueue(h.id, event, envelope, due, at.toISOString());
    if (wantsMail(store, e)) store.mailOutbox.enqueue(event, envelope, due, at.toISOString());
    return e;
  }

  /** After the commit: the live consumers hear what was committed, in order. */
  announce(events: readonly WgcpEvent[]): void {
    for (const e of events) {
      for (const l of this.listeners) {
        try {
          l(e);
        } catch (err) {
          this.log.error('event listener failed', { event: e.event, error: err instanceof Error ? err.message : String(err) });
        }
      }
    }
  }
}
