// The daemon's services, made once from the App's core and handed down in `app.services`
// (docs/development.md, "Services"). A module never keeps a service of its own keyed by the
// App: what it needs, it reads from here, so one reading of this file shows what runs.
import type { App, Services } from './app';
import { MetricsTally } from './metrics/tally';
import { HistoryRecorder } from './history/recorder';
import { HistoryTable } from './history/table';
import { makeDeviceContext } from './device/context';
import type { FailureLimit } from './device/failure-limiter';
import { SignInLimiter } from './http/sign-in-limiter';
import { SIGN_IN_LIMIT } from './http/session';
import { lazyOidcClient } from './http/oidc';
import { PasskeyChallenges } from './access/passkey-challenges';

/** What the services are made from: the App without them. */
export type ServiceHost = Omit<App, 'services'>;

export interface ServiceOptions {
  /** The tally the kernel seam was made with (it counts before the App exists). */
  metrics?: MetricsTally;
  /** The device API's SERVER_SALT (src/device/server-salt.ts). */
  salt: string;
  provisionLimit?: FailureLimit;
}

export function makeServices(core: ServiceHost, opts: ServiceOptions): Services {
  const clock = () => core.now().getTime();
  return {
    metrics: opts.metrics ?? new MetricsTally(),
    history: new HistoryRecorder(core.store, new HistoryTable(core.store.db), core.log),
    device: makeDeviceContext(core, opts.salt, opts.provisionLimit),
    signIns: new SignInLimiter(SIGN_IN_LIMIT, clock),
    passkeyChallenges: new PasskeyChallenges(clock),
    oidcClient: lazyOidcClient(core.config.oidc),
    // Set by the daemon once the jobs and the reconciler start; the pair by src/ha/start.ts.
    clockWatch: null,
    reconciler: null,
    pair: null,
    pairControl: null,
  };
}

/** An App of its core and services made the daemon's way (the daemon and the benches). */
export function withServices(core: ServiceHost, opts: ServiceOptions): App {
  return { ...core, services: makeServices(core, opts) };
}
