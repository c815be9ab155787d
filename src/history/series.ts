// A subject's traffic at one step over [from, to): the rows of that step's tier and of every
// finer tier (the last 48 hours are still in 5-minute rows, the last 35 days partly in hourly
// ones) summed by the step's buckets, plus the buckets still in memory. Buckets without
// traffic are left out. Coarser tiers are never split: a 5-minute query reaches back 48 hours.
import type { HeldBucket } from './recorder';
import type { HistoryTable } from './table';
import { bucketStart, TIERS, tierOf, type StepName } from './tiers';

export interface Point { t: number; rxBytes: number; txBytes: number }

export function readSeries(table: HistoryTable, held: readonly HeldBucket[], subject: number, step: StepName, from: number, to: number): Point[] {
  const seconds = tierOf(step).seconds;
  const start = bucketStart(from, seconds);
  const sums = new Map<number, Point>();
  const add = (t: number, rx: number, tx: number) => {
    const b = bucketStart(t, seconds);
    if (b < start || b >= to) return;
    const p = sums.get(b);
    if (p) { p.rxBytes += rx; p.txBytes += tx; } else sums.set(b, { t: b, rxBytes: rx, txBytes: tx });
  };
  for (let i = 0; i < TIERS.length && TIERS[i].seconds <= seconds; i++) {
    for (const r of table.bucketsOf(i, subject, start, to)) add(r.t, r.rxBytes, r.txBytes);
  }
  for (const bucket of held) {
    const pending = bucket.bytes.get(subject);
    if (pending) add(bucket.t, pending[0], pending[1]);
  }
  return [...sums.values()].filter((p) => p.rxBytes + p.txBytes > 0).sort((a, b) => a.t - b.t);
}
