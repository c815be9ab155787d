// The calendar jobs: the monthly usage reset and peer expiry. Both read the app's clock,
// so tests drive them with an injected one.
import type { App } from '../app';
import { getPeer, planPeerDelete } from '../ops/peers';
import { liftRestrictions } from './usage';
import { usageMonth } from './usage-delta';

const MONTH_STATE = 'usageMonth';

/**
 * Starts a new usage month when the clock has entered one: usage to zero and data-limit
 * restrictions lifted (admin disables stay). Runs from the 00:00-on-the-1st schedule and
 * at every start and cycle, so a daemon that was down at midnight still resets.
 */
export async function resetIfNewMonth(app: App): Promise<boolean> {
  const month = usageMonth(app.now());
  if (app.store.usage.getState(MONTH_STATE) === month) return false;
  const started = await app.runner.run('usage.new-month', (store) => {
    const stored = store.usage.getState(MONTH_STATE);
    if (stored === month) return { commit: () => false };
    // A clock behind the stored month (a router without RTC before NTP) never resets usage.
    if (stored !== null && month < stored) {
      app.log.warn('the clock is behind the current usage month; usage is not reset', { month, usageMonth: stored });
      return { commit: () => false };
    }
    return {
      commit({ store }) {
        store.usage.setState(MONTH_STATE, month);
        // A fresh database has no month yet: its usage already belongs to this one.
        if (stored === null) return false;
        store.usage.zeroAllUsage();
        return true;
      },
    };
  }, { actor: { kind: 'job', name: 'monthly reset' } });
  if (!started) return false;
  const lifted = await liftRestrictions(app);
  app.log.info('usage month started: usage reset to zero', { month, restrictionsLifted: lifted.length });
  return true;
}

/** Deletes peers past expiresAt as a normal delete (kernel, rules, peerDeleted) that also records peerExpired. */
export async function expirePeers(app: App): Promise<number[]> {
  const done: number[] = [];
  const now = app.now().toISOString();
  for (const id of app.store.usage.expired(now)) {
    try {
      const gone = await app.runner.run('peer.expire', (store) => {
        const peer = store.peers.get(id);
        // Deleted, or given a later expiry, since the list was read: nothing to do.
        if (!peer || peer.expiresAt === null || peer.expiresAt === '' || peer.expiresAt > now) return { commit: () => null };
        return planPeerDelete(store, getPeer({ store }, id), true);
      }, { actor: { kind: 'job', name: 'expiry' } });
      if (!gone) continue;
      app.log.info('peer expired and was deleted', { peerID: id, expiresAt: gone.peer.expiresAt });
      done.push(id);
    } catch (err) {
      app.log.error('deleting an expired peer failed; it is tried again next minute', { peerID: id, error: err instanceof Error ? err.message : String(err) });
    }
  }
  return done;
}
