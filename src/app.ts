// What every api module and job is handed: the store (to read), the change runner (the
// only way to change anything), the kernel seam, the event bus, the logger, the
// configuration, the clock (injectable for tests) and the daemon's services.
import type { Config } from './config';
import type { EventBus } from './events/bus';
import type { KernelPlane } from './kernel/plane';
import type { Logger } from './log';
import type { Store } from './store/store';
import type { ChangeRunner } from './ops/runner';
import type { MetricsTally } from './metrics/tally';
import type { HistoryRecorder } from './history/recorder';
import type { DeviceContext } from './device/context';
import type { SignInLimiter } from './http/sign-in-limiter';
import type { PasskeyChallenges } from './access/passkey-challenges';
import type { OidcClient } from './http/oidc-client';
import type { Pair } from './ha/pair';
import type { PairControl } from './ha/start';

/** A wall-clock jump the jobs wait out (src/jobs/clock-watch.ts). */
export interface PendingClockJump { offsetMs: number; seenAt: string }

/**
 * The daemon's long-lived services, each made once in src/daemon.ts and handed down here:
 * no module keeps one of its own keyed by the App (docs/development.md, "Services").
 */
export interface Services {
  /** The counters the kernel seam, the jobs and the listeners count into; GET /metrics reads it. */
  metrics: MetricsTally;
  /** The traffic history: the usage job writes through it, the API reads its open bucket. */
  history: HistoryRecorder;
  /** The device API's salt, limiters, heartbeat queue and answers, shared by both listeners. */
  device: DeviceContext;
  /** Failed sign-ins, whichever way they came (a key, a code, a passkey). */
  signIns: SignInLimiter;
  /** The single sign-on client, made at the first sign-in; refuses when single sign-on is not set up. */
  oidcClient(): OidcClient;
  /** Passkey ceremonies under way. */
  passkeyChallenges: PasskeyChallenges;
  /** The clock watch of the jobs (null until they start, or when they are not scheduled). */
  clockWatch: { pending(): PendingClockJump | null } | null;
  /** The standby pair and its control (src/ha/): null until the daemon starts it. */
  pair: Pair | null;
  pairControl: PairControl | null;
  /** The drift reconciler (null when the kernel is off or the jobs are not scheduled). */
  reconciler: { afterUsage(): Promise<void> } | null;
}

export interface App {
  config: Config;
  store: Store;
  kernel: KernelPlane;
  events: EventBus;
  runner: ChangeRunner;
  log: Logger;
  now(): Date;
  services: Services;
}
