// One scrape: read the store and the tally, render with prom-client (loaded on the first
// scrape, then kept). Scrapes that arrive while one is being made share its answer, so a
// burst of scrapers costs one rendering.
import type { App } from '../app';
import type { Exposition } from './exposition';
import { metricsOf } from './context';
import { readStoreSnapshot } from './scrape-read';

interface ScrapeState { exposition: Exposition | null; inFlight: Promise<ScrapeAnswer> | null }
export interface ScrapeAnswer { contentType: string; text: string }

const states = new WeakMap<App, ScrapeState>();

function exposition(state: ScrapeState): Exposition {
  if (!state.exposition) {
    // Lazily: prom-client and its default metrics cost memory a router that is never scraped keeps.
    const { Exposition: Made } = require('./exposition') as typeof import('./exposition');
    state.exposition = new Made();
  }
  return state.exposition;
}

export function scrape(app: App): Promise<ScrapeAnswer> {
  let state = states.get(app);
  if (!state) { state = { exposition: null, inFlight: null }; states.set(app, state); }
  if (state.inFlight) return state.inFlight;
  const s = state;
  s.inFlight = (async () => {
    try {
      const e = exposition(s);
      const data = { ...(await readStoreSnapshot(app.store.db)), now: Math.floor(app.now().getTime() / 1000), tally: metricsOf(app) };
      return { contentType: e.contentType, text: await e.render(data) };
    } finally {
      s.inFlight = null;
    }
  })();
  return s.inFlight;
}
