// The traffic history's three tiers, and the arithmetic of their buckets (pure). A bucket is
// named by its start in Unix seconds, UTC. Rows of a tier older than its retention are summed
// into the next tier (or dropped from the last); each cutoff is aligned to the next tier's
// bucket, so a bucket of the next tier is always made whole, in one step.

export type StepName = '5m' | '1h' | '1d';

export interface Tier {
  step: StepName;
  /** Bucket length in seconds. */
  seconds: number;
  /** The table holding this tier's rows. */
  table: 'traffic_5m' | 'traffic_1h' | 'traffic_1d';
  /** How far back this tier reaches. */
  keepSeconds: number;
}

const HOUR = 3600;
const DAY = 86_400;

export const TIERS: readonly Tier[] = [
  { step: '5m', seconds: 300, table: 'traffic_5m', keepSeconds: 48 * HOUR },
  { step: '1h', seconds: HOUR, table: 'traffic_1h', keepSeconds: 35 * DAY },
  { step: '1d', seconds: DAY, table: 'traffic_1d', keepSeconds: 400 * DAY },
];

export const STEP_NAMES: readonly StepName[] = TIERS.map((t) => t.step);

export function tierOf(step: StepName): Tier {
  return TIERS.find((t) => t.step === step)!;
}

/** The start of the bucket of `seconds` length that holds `t`. */
export function bucketStart(t: number, seconds: number): number {
  return t - (((t % seconds) + seconds) % seconds);
}

export const unixSeconds = (d: Date): number => Math.floor(d.getTime() / 1000);

/**
 * Where each tier ends at `now`: rows of tier i starting before cutoffs[i] go up into tier
 * i+1 (summed by its bucket), rows of the last tier before its cutoff are dropped.
 */
export function cutoffs(now: number): number[] {
  return TIERS.map((tier, i) => bucketStart(now - tier.keepSeconds, (TIERS[i + 1] ?? tier).seconds));
}

/**
 * Rows one active peer can hold at most: each tier spans its retention less the tier below
 * it, plus one bucket of the next tier for the alignment of the cutoffs, plus the bucket
 * being filled. The figure the documentation states.
 */
export function maxRowsPerSubject(): { byTier: Record<StepName, number>; total: number } {
  const byTier = {} as Record<StepName, number>;
  let below = 0;
  TIERS.forEach((tier, i) => {
    const slack = (TIERS[i + 1] ?? tier).seconds;
    byTier[tier.step] = Math.ceil((tier.keepSeconds - below + slack) / tier.seconds) + (i === 0 ? 1 : 0);
    below = tier.keepSeconds;
  });
  return { byTier, total: Object.values(byTier).reduce((a, b) => a + b, 0) };
}
