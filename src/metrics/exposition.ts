// The text a scrape answers, made by prom-client (required here, and this module only by the
// first scrape: a router that is never scraped never loads it). Each wgcp family is a
// prom-client metric whose values are the scrape's samples; prom-client's default process
// metrics sit beside them. So that a scrape of 10,000 peers never holds the API for long,
// a family is rendered a slice of samples at a time, with a turn of the event loop between
// slices; the slices after the first drop the two header lines prom-client repeats.
import * as client from 'prom-client';
import { FAMILIES, SLICE, type Family, type Sample, type ScrapeData } from './families';
import { DURATION_BUCKETS } from './tally';
import { REPLACED_DEFAULTS } from './state-families';

interface SliceHolder { slice: Sample[] }

// Each subclass keeps prom-client's own object (name, help, type, aggregator) and puts the
// current slice of the family's samples in it: the values are wgcp's, the format prom-client's.
class FamilyCounter extends client.Counter<string> implements SliceHolder {
  slice: Sample[] = [];
  constructor(f: Family) { super({ name: f.name, help: f.help, labelNames: [...f.labelNames], registers: [] }); }
  override async get() { return { ...(await super.get()), values: this.slice }; }
}
class FamilyGauge extends client.Gauge<string> implements SliceHolder {
  slice: Sample[] = [];
  constructor(f: Family) { super({ name: f.name, help: f.help, labelNames: [...f.labelNames], registers: [] }); }
  override async get() { return { ...(await super.get()), values: this.slice }; }
}
type HistogramObject = Awaited<ReturnType<client.Histogram<string>['get']>>;
class FamilyHistogram extends client.Histogram<string> implements SliceHolder {
  slice: Sample[] = [];
  constructor(private readonly family: Family) {
    super({ name: family.name, help: family.help, labelNames: [...family.labelNames], buckets: DURATION_BUCKETS, registers: [] });
  }
  override async get() { return this.snapshot(); }
  /** What prom-client's registry reads a histogram's text from (its get() goes through it too). */
  async getForPromString() { return this.snapshot(); }
  private snapshot(): HistogramObject {
    // prom-client's typings give `type` as a numeric enum; the registry prints the string it holds at run time.
    return { name: this.family.name, help: this.family.help, type: 'histogram', aggregator: 'sum', values: this.slice } as unknown as HistogramObject;
  }
}

// prom-client's default gauges that break the naming rules (a _total suffix on a gauge,
// which promtool refuses); the same counts stay in their per-type gauges without the suffix.
const MISNAMED_DEFAULTS = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'];

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A rendering without its first two lines (# HELP and # TYPE). */
function withoutHeader(text: string): string {
  const second = text.indexOf('\n', text.indexOf('\n') + 1);
  return second < 0 ? '' : text.slice(second + 1);
}

export class Exposition {
  readonly contentType = client.Registry.PROMETHEUS_CONTENT_TYPE;
  private readonly registry = new client.Registry();
  private readonly families = new Map<string, { family: Family; metric: SliceHolder }>();
  /** Renders hold slices in the metrics between turns: one at a time (two daemons in a process, as tests run). */
  private queue: Promise<unknown> = Promise.resolve();

  constructor() {
    // The defaults first, so that the families replacing some of them can take their names.
    client.collectDefaultMetrics({ register: this.registry });
    for (const name of [...MISNAMED_DEFAULTS, ...REPLACED_DEFAULTS]) this.registry.removeSingleMetric(name);
    for (const f of FAMILIES) {
      const metric = f.type === 'counter' ? new FamilyCounter(f) : f.type === 'gauge' ? new FamilyGauge(f) : new FamilyHistogram(f);
      this.registry.registerMetric(metric);
      this.families.set(f.name, { family: f, metric });
    }
  }

  /** The whole exposition for this scrape's data, after any rendering under way. */
  render(data: ScrapeData): Promise<string> {
    const next = this.queue.then(() => this.renderNow(data));
    this.queue = next.catch(() => undefined);
    return next;
  }

  private async renderNow(data: ScrapeData): Promise<string> {
    const parts: string[] = [];
    for (const metric of this.registry.getMetricsAsArray()) {
      await turn();
      const own = this.families.get(metric.name);
      if (!own) { parts.push(await this.registry.getSingleMetricAsString(metric.name)); continue; }
      const samples = own.family.samples(data);
      let text = '';
      for (let i = 0; i === 0 || i < samples.length; i += SLICE) {
        if (i > 0) await turn();
        own.metric.slice = samples.slice(i, i + SLICE);
        const part = await this.registry.getSingleMetricAsString(metric.name);
        text += i === 0 ? part : `\n${withoutHeader(part)}`;
      }
      own.metric.slice = [];
      parts.push(text);
    }
    return `${parts.join('\n\n')}\n`;
  }
}
