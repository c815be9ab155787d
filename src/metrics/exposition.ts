// The text a scrape answers, made by prom-client (required here, and this module only by the
// first scrape: a router that is never scraped never loads it). Each wgcp family is a
// prom-client metric whose values are read from the scrape's data; prom-client's default
// process metrics sit beside them. Families are rendered one at a time with a turn of the
// event loop between them, so that a scrape of 10,000 peers never holds the API for long.
import * as client from 'prom-client';
import { FAMILIES, type Family, type Sample, type ScrapeData } from './families';
import { DURATION_BUCKETS } from './tally';

type Source = () => Sample[];

// Each subclass keeps prom-client's own object (name, help, type, aggregator) and puts the
// family's samples in it: the values are wgcp's, the format is prom-client's.
class FamilyCounter extends client.Counter<string> {
  constructor(f: Family, private readonly source: Source) { super({ name: f.name, help: f.help, labelNames: [...f.labelNames], registers: [] }); }
  override async get() { return { ...(await super.get()), values: this.source() }; }
}
class FamilyGauge extends client.Gauge<string> {
  constructor(f: Family, private readonly source: Source) { super({ name: f.name, help: f.help, labelNames: [...f.labelNames], registers: [] }); }
  override async get() { return { ...(await super.get()), values: this.source() }; }
}
type HistogramObject = Awaited<ReturnType<client.Histogram<string>['get']>>;
class FamilyHistogram extends client.Histogram<string> {
  constructor(private readonly family: Family, private readonly source: Source) {
    super({ name: family.name, help: family.help, labelNames: [...family.labelNames], buckets: DURATION_BUCKETS, registers: [] });
  }
  override async get() { return this.snapshot(); }
  /** What prom-client's registry reads a histogram's text from (its get() goes through it too). */
  async getForPromString() { return this.snapshot(); }
  private snapshot(): HistogramObject {
    // prom-client's typings give `type` as a numeric enum; the registry prints the string it holds at run time.
    return { name: this.family.name, help: this.family.help, type: 'histogram', aggregator: 'sum', values: this.source() } as unknown as HistogramObject;
  }
}

// prom-client's default gauges that break the naming rules (a _total suffix on a gauge,
// which promtool refuses); the same counts stay in their per-type gauges without the suffix.
const MISNAMED_DEFAULTS = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'];

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

export class Exposition {
  readonly contentType = client.Registry.PROMETHEUS_CONTENT_TYPE;
  private readonly registry = new client.Registry();
  private data: ScrapeData | null = null;

  constructor() {
    for (const f of FAMILIES) {
      const source = () => f.samples(this.data!);
      const Metric = f.type === 'counter' ? FamilyCounter : f.type === 'gauge' ? FamilyGauge : FamilyHistogram;
      this.registry.registerMetric(new Metric(f, source));
    }
    client.collectDefaultMetrics({ register: this.registry });
    for (const name of MISNAMED_DEFAULTS) this.registry.removeSingleMetric(name);
  }

  /** The whole exposition for this scrape's data, one family a turn. */
  async render(data: ScrapeData): Promise<string> {
    this.data = data;
    try {
      const parts: string[] = [];
      for (const metric of this.registry.getMetricsAsArray()) {
        await turn();
        parts.push(await this.registry.getSingleMetricAsString(metric.name));
      }
      return `${parts.join('\n\n')}\n`;
    } finally {
      this.data = null;
    }
  }
}
