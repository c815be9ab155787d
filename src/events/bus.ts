// The events: their names and envelope, who hears which, and the bus that announces them
// once committed. They are recorded inside the transaction of the change that causes them
// (src/ops/event-record.ts: the outbox rows); after the commit the change runner announces
// them here to the live consumers (the stream, and the webhook and mail senders' kick). A
// failing consumer never reaches the runner.
import type { Logger } from '../log';
import type { WebhookRecord } from '../store/webhooks';
import type { Schedule } from '../schedule/rules';
import { ACTIONS } from '../resources/webhook';

export { withDeviceIdPrefixes } from './device-redaction';

/** The contract's event codes, the numbers a webhook subscribes to: kept with the webhook's description. */
export { ACTIONS };

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

/** The events that name one peer: the runner records them with the peer's record (Commit.peerEvent). */
export type PeerEventName = 'peerCreated' | 'peerUpdated' | 'peerDeleted' | 'peerRestricted' | 'peerExpired';

/**
 * What the daemon's own subscribers (the scheduler, the jobs) hear of a committed change:
 * typed, made by the change runner from the records, never the public event payload.
 */
export type ChangeNotice =
  /** A peer made or changed (`gone`: deleted or expired), as it is stored now. */
  | { kind: 'peer'; id: number; gone: boolean; enabled: boolean; schedule: Schedule | null }
  /** A server made, changed or gone (a restore announces only these). */
  | { kind: 'server'; id: number };

export type ChangeListener = (notice: ChangeNotice) => void;

/** Told the ids of keys and tokens whose access a committed change ended (revoked). */
export type AccessEndedListener = (credentialIds: readonly number[]) => void;

export class EventBus {
  private readonly listeners = new Set<EventListener>();
  private readonly accessListeners = new Set<AccessEndedListener>();
  private readonly changeListeners = new Set<ChangeListener>();
  constructor(private readonly log: Logger, readonly now: () => Date = () => new Date()) {}

  /** Access that ended is no event (no webhook, no outbox row): only what holds it open (the live stream) hears it. */
  onAccessEnded(listener: AccessEndedListener): () => void {
    this.accessListeners.add(listener);
    return () => this.accessListeners.delete(listener);
  }

  /** After the commit of a change that revoked credentials. */
  announceAccessEnded(credentialIds: readonly number[]): void {
    if (credentialIds.length === 0) return;
    this.tell(this.accessListeners, credentialIds, 'access-ended listener failed', {});
  }

  /** The daemon's own subscribers: typed notices of what each committed change did. */
  onChange(listener: ChangeListener): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  /** After the commit, with its events: each notice to each subscriber, in order. */
  announceChanges(notices: readonly ChangeNotice[]): void {
    for (const n of notices) this.tell(this.changeListeners, n, 'change listener failed', { kind: n.kind });
  }

  subscribe(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** After the commit: the live consumers hear what was committed, in order. */
  announce(events: readonly WgcpEvent[]): void {
    for (const e of events) this.tell(this.listeners, e, 'event listener failed', { event: e.event });
  }

  /** Each listener hears `item`; one that throws is logged (with `fields`) and the others still hear it. */
  private tell<T>(listeners: Iterable<(item: T) => void>, item: T, failed: string, fields: Record<string, unknown>): void {
    for (const l of listeners) {
      try {
        l(item);
      } catch (err) {
        this.log.error(failed, { ...fields, error: err instanceof Error ? err.message : String(err) });
      }
    }
  }
}
