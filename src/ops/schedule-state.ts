// The `schedule` reason as a peer's schedule decides it at an instant: added when the
// schedule is closed, lifted when it is open or gone; the other reasons are left alone.
import { isOpenAt } from '../schedule/next-transition';
import type { PeerRecord } from '../store/peers';
import { hasReason, withReason, withoutReason } from '../peer-state';

/** Whether the peer's schedule keeps it off at `t` (ms); a peer without one never is. */
export const scheduleClosed = (p: Pick<PeerRecord, 'schedule'>, t: number): boolean => (p.schedule ? !isOpenAt(p.schedule, t) : false);

/** The peer with `schedule` in its reasons exactly when its schedule is closed at `t`. */
export function withScheduleState(p: PeerRecord, t: number): PeerRecord {
  const closed = scheduleClosed(p, t);
  if (closed === hasReason(p, 'schedule')) return p;
  return closed ? withReason(p, 'schedule') : withoutReason(p, 'schedule');
}
