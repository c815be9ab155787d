// The calendar jobs: the monthly usage reset and peer expiry. Both act on the time they are
// given: the schedule gives its clock watch's (clock-watch.ts: a jump of the wall clock is
// waited out); by default the app's clock, so tests drive them with an injected one.
import type { App } from '../app';
import { expirePeer } from '../ops/peers';
import { jobActor } from '../ops/runner';
import { startUsageMonth, storedUsageMonth } from '../ops/usage';
import { liftRestrictions } from './usage';
import { usageMonth } from './usage-delta';


/**
 * Starts a new usage month when the clock has entered one: usage to zero and data-limit
 * restrictions lifted (admin disables stay). Runs from the 00:00-on-the-1st schedule and
 * at every start and cycle, so a daemon that was down at midnight still resets.
 */
export async function resetIfNewMonth(app: App, at: Date = app.now()): Promise<boolean> {
  const month = usageMonth(at);
  if (storedUsageMonth(app.store) === month) return false;
  const { outcome, stored } = await startUsageMonth(app, month, { actor: jobActor('monthly reset') });
  // A clock behind the stored month (a router without RTC before NTP) never resets usage.
  if (outcome === 'behind') app.log.warn('the clock is behind the current usage month; usage is not reset', { month, usageMonth: stored });
  if (outcome !== 'started') return false;
  const lifted = await liftRestrictions(app);
  app.log.info('usage month started: usage reset to zero', { month, restrictionsLifted: lifted.length });
  return true;
}

/** Deletes peers past expiresAt as a normal delete (kernel, rules, peerDeleted) that also records peerExpired. */
export async function expirePeers(app: App, at: Date = app.now()): Promise<number[]> {
  const done: number[] = [];
  const now = at.toISOString();
  for (const id of app.store.peers.expiredAt(now)) {
    try {
      const gone = await expirePeer(app, id, now, { actor: jobActor('expiry') });
      if (!gone) continue;
      app.log.info('peer expired and was deleted', { peerID: id, expiresAt: gone.peer.expiresAt });
      done.push(id);
    } catch (err) {
      app.log.error('deleting an expired peer failed; it is tried again next minute', { peerID: id, error: err instanceof Error ? err.message : String(err) });
    }
  }
  return done;
}
