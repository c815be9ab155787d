// Events as a transactional outbox: the change runner records each event inside the
// transaction of the change that causes it, one outbox row for every webhook that hears it
// and one for a mail notice. An event is stored exactly when its change is, and a change
// whose event cannot be written fails with it.
import { ACTIONS, MAILED_EVENTS, hears, withDeviceIdPrefixes, type EventName, type WgcpEvent } from '../events/bus';
import type { Store } from '../store/store';

function wantsMail(store: Store, e: WgcpEvent): boolean {
  if (!MAILED_EVENTS.has(e.event)) return false;
  const peer = e.data.peer as { email?: unknown } | undefined;
  return typeof peer?.email === 'string' && peer.email !== '' && store.smtp.get().enabled;
}

/** The event (a device named only by its id's prefix) and its outbox rows; a throw fails the change. */
export function recordEvent(store: Store, at: Date, event: EventName, serverID: number, data: Record<string, unknown>): WgcpEvent {
  const e: WgcpEvent = { action: ACTIONS[event], event, serverID, timestamp: at.toISOString(), data: withDeviceIdPrefixes(data) };
  const hooks = store.webhooks.listenersOf(serverID).filter((h) => hears(h, e));
  const envelope = hooks.length > 0 || MAILED_EVENTS.has(event) ? JSON.stringify(e) : '';
  const due = Date.now();
  for (const h of hooks) store.outbox.enqueue(h.id, event, envelope, due, e.timestamp);
  if (wantsMail(store, e)) store.mailOutbox.enqueue(event, envelope, due, e.timestamp);
  return e;
}
