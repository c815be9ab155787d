// The daemon's one tally for an App: the usage job, the kernel seam and the HTTP listeners
// count into it; GET /metrics reads it. The daemon attaches the tally its kernel seam was
// made with (before the App); anything else gets one made on first use.
import type { App } from '../app';
import { MetricsTally } from './tally';

const tallies = new WeakMap<App, MetricsTally>();

export function attachMetrics(app: App, tally: MetricsTally): void {
  tallies.set(app, tally);
}

export function metricsOf(app: App): MetricsTally {
  let t = tallies.get(app);
  if (!t) {
    t = new MetricsTally();
    tallies.set(app, t);
  }
  return t;
}
