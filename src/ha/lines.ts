// Which of two lines of changes is the pair's, and how a follower's stands to a primary's
// (pure). A line is known by its epoch and the random node of the promotion that began it:
// two routers promoted from the same epoch while cut off from each other take the same
// number, and the higher node wins the tie, so that of any two lines exactly one is later.
import type { EpochStart } from '../store/ha';

export interface Line { epoch: number; node: string }

/** True when line `a` is later than `b` (the pair's, when the two meet). */
export const laterLine = (a: Line, b: Line): boolean => a.epoch > b.epoch || (a.epoch === b.epoch && a.node > b.node);

export type TailVerdict = { kind: 'follow' } | { kind: 'diverged'; since: number } | { kind: 'snapshot' } | { kind: 'newer' };

/** A primary's line: its position, the last sequence its journal no longer holds, its epochs. */
export interface OwnLine { epoch: number; seq: number; pruned: number; epochs: readonly EpochStart[] }

/** A follower as it asks: the epoch it stands in (its node and first sequence) and the last change it holds. */
export interface FollowerLine extends Line { start: number; seq: number }

export function judgeFollower(own: OwnLine, f: FollowerLine): TailVerdict {
  const current = own.epochs.find((e) => e.epoch === own.epoch) ?? { epoch: own.epoch, startSeq: 1, node: '' };
  if (laterLine(f, current)) return { kind: 'newer' };
  const mine = own.epochs.find((e) => e.epoch === f.epoch);
  // The first epoch of this line after the follower's: its changes from that epoch's start on were never this line's.
  const later = own.epochs.filter((e) => e.epoch > f.epoch).sort((a, b) => a.epoch - b.epoch)[0];
  // The follower's epoch is not this line's (the same number from another promotion, or one
  // this line never had): its changes from its epoch's start on were never this line's either.
  const since = mine && mine.node === f.node ? later?.startSeq
    : Math.min(f.start, mine?.startSeq ?? Infinity, later?.startSeq ?? Infinity);
  if (since !== undefined && f.seq >= since) return { kind: 'diverged', since };
  if (f.epoch === own.epoch && f.seq > own.seq) return { kind: 'diverged', since: own.seq + 1 };
  return f.seq >= own.seq || f.seq >= own.pruned ? { kind: 'follow' } : { kind: 'snapshot' };
}
