// The calendar jobs: the monthly usage reset and peer expiry. Both read the app's clock,
// so tests drive them with an injected one.
import type { App } from '../app';
import { deletePeer } from '../ops/peers';
import { presentPeer } from '../views/present';
import { liftRestrictions } from './usage';
import { usageMonth } from './usage-delta';

const MONTH_STATE = 'usageMonth';

/**
 * Starts a new usage month when the clock has entered one: usage to zero and data-limit
 * restrictions lifted (admin disables stay). Runs from the 00:00-on-the-1st schedule and
 * at every start and cycle, so a daemon that was down at midnight still resets.
 */
export function resetIfNewMonth(app: App): boolean {
  const month = usageMonth(app.now());
  const { usage } = app.store;
  const started = app.store.tx(() => {
    const stored = usage.getState(MONTH_STATE);
    if (stored === month) return false;
    // A clock behind the stored month (a router without RTC before NTP) never resets usage.
    if (stored !== null && month < stored) {
      app.log.warn('the clock is behind the current usage month; usage is not reset', { month, usageMonth: stored });
      return false;
    }
    usage.setState(MONTH_STATE, month);
    // A fresh database has no month yet: its usage already belongs to this one.
    if (stored === null) return false;
    usage.zeroAllUsage();
    return true;
  });
  if (!started) return false;
  const lifted = liftRestrictions(app);
  app.log.info('usage month started: usage reset to zero', { month, restrictionsLifted: lifted.length });
  return true;
}

/** Deletes peers past expiresAt as a normal delete (kernel, rules, peerDeleted), then announces peerExpired. */
export function expirePeers(app: App): number[] {
  const done: number[] = [];
  for (const id of app.store.usage.expired(app.now().toISOString())) {
    const peer = app.store.peers.get(id);
    if (!peer) continue;
    try {
      const server = app.store.servers.get(peer.serverId);
      deletePeer(app, peer.id);
      app.log.info('peer expired and was deleted', { peerID: id, expiresAt: peer.expiresAt });
      app.events.publish('peerExpired', peer.serverId, { mode: server?.mode, peer: presentPeer(peer) });
      done.push(id);
    } catch (err) {
      app.log.error('deleting an expired peer failed; it is tried again next minute', { peerID: id, error: err instanceof Error ? err.message : String(err) });
    }
  }
  return done;
}
