// What the daemon counts between scrapes, in plain memory and without prom-client (loaded by
// the first scrape only): counters and histograms by label values. A scrape reads them as
// they stand; nothing here is ever reset, so Prometheus sees counters that only grow.
import { DRIFT_KINDS } from '../kernel/reconcile-target';

export interface Sample { labels: Record<string, string>; value: number }

function keyOf(values: readonly string[]): string { return values.join('\u0000'); }

export class CounterTally {
  private readonly entries = new Map<string, { labels: Record<string, string>; value: number }>();

  constructor(readonly labelNames: readonly string[]) {}

  inc(values: readonly string[], by = 1): void {
    const key = keyOf(values);
    const e = this.entries.get(key);
    if (e) e.value += by;
    else this.entries.set(key, { labels: Object.fromEntries(this.labelNames.map((n, i) => [n, values[i]])), value: by });
  }

  samples(): Sample[] { return [...this.entries.values()].map((e) => ({ labels: e.labels, value: e.value })); }
}

export interface HistogramSeries { labels: Record<string, string>; counts: number[]; sum: number; count: number }

/** Observations counted into fixed buckets (upper bounds, ascending); +Inf is implied. */
export class HistogramTally {
  private readonly series = new Map<string, HistogramSeries>();

  constructor(readonly buckets: readonly number[], readonly labelNames: readonly string[]) {}

  observe(values: readonly string[], v: number): void {
    const key = keyOf(values);
    let s = this.series.get(key);
    if (!s) {
      s = { labels: Object.fromEntries(this.labelNames.map((n, i) => [n, values[i]])), counts: this.buckets.map(() => 0), sum: 0, count: 0 };
      this.series.set(key, s);
    }
    const i = this.buckets.findIndex((b) => v <= b);
    if (i >= 0) s.counts[i]++;
    s.sum += v;
    s.count++;
  }

  /** Each series with its per-bucket (not yet cumulative) counts. */
  all(): HistogramSeries[] { return [...this.series.values()]; }
}

// Seconds: from a fraction of a millisecond (one peer on a live interface) to a whole rebuild.
export const DURATION_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Everything the daemon's own code counts. */
export class MetricsTally {
  readonly httpRequests = new CounterTally(['listener', 'method', 'route', 'status_class']);
  readonly heartbeats = new CounterTally(['result']);
  readonly provisions = new CounterTally(['result']);
  readonly kernelApply = new HistogramTally(DURATION_BUCKETS, ['kind']);
  readonly kernelFailures = new CounterTally(['kind']);
  readonly usageCycle = new HistogramTally(DURATION_BUCKETS, []);
  /** Items the reconciler put right, and the compares it made, by kind (issue 24). */
  readonly driftRepairs = new CounterTally(['kind']);
  readonly driftChecks = new CounterTally(['kind']);

  constructor() {
    // Known label values start at 0, so that rate() and increase() see their first event.
    for (const kind of ['server', 'peer', 'forward', 'reconcile', 'sync']) this.kernelFailures.inc([kind], 0);
    for (const result of ['ok', 'rejected', 'error']) this.heartbeats.inc([result], 0);
    for (const kind of DRIFT_KINDS) { this.driftRepairs.inc([kind], 0); this.driftChecks.inc([kind], 0); }
    for (const result of ['provisioned', 'rejected', 'limited', 'error']) this.provisions.inc([result], 0);
  }
}
