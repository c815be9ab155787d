// A traffic series as the chart draws it: the API leaves out buckets without traffic, and a
// line drawn straight across them would say traffic went on; each missing bucket of the
// range is drawn as 0.
import type { UsageSeries } from './types';

export const STEP_SECONDS: Record<UsageSeries['step'], number> = { '5m': 300, '1h': 3600, '1d': 86400 };
export const RANGE_SECONDS: Record<UsageSeries['step'], number> = { '5m': 48 * 3600, '1h': 35 * 86400, '1d': 400 * 86400 };

/** Every bucket from `nowS - range` to the bucket holding `nowS`, in seconds, with received and sent bytes (0 when absent). */
export function filledSeries(series: UsageSeries, nowS: number): [number[], number[], number[]] {
  const step = STEP_SECONDS[series.step];
  const byT = new Map(series.points.map((p) => [Math.floor(Date.parse(p.t) / 1000), p]));
  // Buckets start where the API's do (UTC multiples of the step).
  const last = Math.floor(nowS / step) * step;
  const first = Math.min(last - RANGE_SECONDS[series.step] + step, ...byT.keys());
  const t: number[] = [];
  const tx: number[] = [];
  const rx: number[] = [];
  for (let s = first; s <= last; s += step) {
    const p = byT.get(s);
    t.push(s);
    tx.push(p?.txBytes ?? 0);
    rx.push(p?.rxBytes ?? 0);
  }
  return [t, tx, rx];
}
