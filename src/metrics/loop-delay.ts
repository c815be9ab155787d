// The event loop's delay as the scrape reports it. prom-client's own gauges read a histogram
// it starts at the first scrape and resets at each: a scrape with no sample since the last
// one (the first, or two close together) said 9.2e9 s (the empty minimum) and NaN. Here a
// window without a sample repeats the last window's figures, zeros before any. Sampling
// starts at the first scrape too: its timer wakes the process every 10 ms, and its
// histogram holds 360 KB, which a router that is never scraped need not pay.
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';

export interface LoopDelayWindow { min: number; max: number; mean: number; stddev: number; p50: number; p90: number; p99: number }

const ZERO: LoopDelayWindow = Object.freeze({ min: 0, max: 0, mean: 0, stddev: 0, p50: 0, p90: 0, p99: 0 });
let histogram: IntervalHistogram | null = null;
let last: LoopDelayWindow = ZERO;

/** Starts sampling (once a process; a SIGHUP restart keeps it). */
export function watchLoopDelay(): void {
  if (histogram) return;
  histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
}

/** The delays sampled since the previous read, in seconds; the previous window's when none was. */
export function readLoopDelay(): LoopDelayWindow {
  watchLoopDelay();
  const h = histogram!;
  if (h.count > 0) {
    const s = (ns: number) => ns / 1e9;
    last = { min: s(h.min), max: s(h.max), mean: s(h.mean), stddev: s(h.stddev), p50: s(h.percentile(50)), p90: s(h.percentile(90)), p99: s(h.percentile(99)) };
    h.reset();
  }
  return last;
}
