// One scrape: read the store and the tally, render with prom-client (loaded on the first
// scrape, then kept for the process: its default metrics watch the process, not a daemon
// instance, so a SIGHUP restart of the daemon reuses it). Scrapes that arrive while one is
// being made share its answer, so a burst of scrapers costs one rendering.
import type { App } from '../app';
import type { Exposition } from './exposition';
import { metricsOf } from './context';
import { readStoreSnapshot } from './scrape-read';
import { readLoopDelay } from './loop-delay';
import { DRIFT_KINDS } from '../kernel/reconcile-target';
import { pairOf } from '../ha/pair';
import type { DaemonState } from './state-families';

export interface ScrapeAnswer { contentType: string; text: string }

let exposition: Exposition | null = null;
const inFlight = new WeakMap<App, Promise<ScrapeAnswer>>();

function loadExposition(): Exposition {
  if (!exposition) {
    // Lazily: prom-client and its default metrics cost memory a router that is never scraped keeps.
    const { Exposition: Made } = require('./exposition') as typeof import('./exposition');
    exposition = new Made();
  }
  return exposition;
}

function haState(app: App): DaemonState['ha'] {
  const pair = pairOf(app);
  if (!pair) return undefined;
  const at = app.store.ha.state();
  const partner = pair.partnerStatus();
  return { role: pair.role, epoch: at.epoch, sequence: at.seq, partnerConnected: partner?.connected ?? false, behind: partner?.behind ?? 0 };
}

export function scrape(app: App): Promise<ScrapeAnswer> {
  const running = inFlight.get(app);
  if (running) return running;
  const made = (async () => {
    try {
      const e = loadExposition();
      const failingRepairs: Record<string, number> = Object.fromEntries(DRIFT_KINDS.map((k) => [k, 0]));
      for (const f of app.kernel.failingRepairs?.() ?? []) failingRepairs[f.kind] += 1;
      const daemon = { kernelOn: app.kernel.state === 'on', failedServerIds: app.kernel.failures().map((f) => f.serverId), failingRepairs, loopDelay: readLoopDelay(), ha: haState(app) };
      const data = { ...(await readStoreSnapshot(app.store.db)), now: Math.floor(app.now().getTime() / 1000), tally: metricsOf(app), daemon };
      return { contentType: e.contentType, text: await e.render(data) };
    } finally {
      inFlight.delete(app);
    }
  })();
  inFlight.set(app, made);
  return made;
}
