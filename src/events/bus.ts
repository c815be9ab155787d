// The event bus the api and the jobs publish to once their transaction has committed.
// Consumers (webhooks, mail, the live stream) subscribe; a failing consumer never
// reaches the publisher.
import type { Logger } from '../log';

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

export class EventBus {
  private readonly listeners = new Set<EventListener>();
  constructor(private readonly log: Logger, private readonly now: () => Date = () => new Date()) {}

  subscribe(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  publish(event: EventName, serverID: number, data: Record<string, unknown>): WgcpEvent {
    const e: WgcpEvent = { action: ACTIONS[event], event, serverID, timestamp: this.now().toISOString(), data };
    for (const l of this.listeners) {
      try {
        l(e);
      } catch (err) {
        this.log.error('event listener failed', { event, error: err instanceof Error ? err.message : String(err) });
      }
    }
    return e;
  }
}
