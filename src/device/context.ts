// What the device API needs beyond the App: the SERVER_SALT, the limiter of failed
// provisioning attempts, the queue of heartbeat reports, the kept heartbeat answers and
// the request buckets (admission.ts).
// Made once by the daemon and kept in the App's services, so both listeners share them.
import { performance } from 'node:perf_hooks';
import type { App } from '../app';
import { DEFAULT_PROVISION_LIMIT, FailureLimiter, type FailureLimit } from '../device/failure-limiter';
import { HeartbeatWriter } from '../device/heartbeat-writer';
import { HeartbeatAnswers } from '../device/heartbeat-answers';
import { fleetLimit, RequestBucket, type BucketLimit } from '../device/request-bucket';
import { DeviceAdmission } from '../device/admission';

/** What the context is made from: the App without its services (they are being made). */
export type DeviceHost = Pick<App, 'config' | 'store' | 'log' | 'now'>;

export interface DeviceContext { salt: string; limiter: FailureLimiter; heartbeats: HeartbeatWriter; answers: HeartbeatAnswers; admission: DeviceAdmission }

/** The floor of the automatic device request rate (a small fleet still gets a real burst). */
const AUTO_FLOOR_PER_S = 50;
/** How often the automatic rate looks at the number of devices again. */
const FLEET_RECOUNT_MS = 60_000;

/** The fleet's limit: WGCP_DEVICE_RATE, or with `auto` from the number of devices; null when 0. */
function fleetLimitOf(app: DeviceHost): (() => BucketLimit) | null {
  const rate = app.config.deviceRate;
  if (rate === 0) return null;
  if (rate !== 'auto') return () => ({ ratePerS: rate, burst: 2 * rate });
  let counted = { at: -Infinity, limit: fleetLimit(0, AUTO_FLOOR_PER_S) };
  return () => {
    const now = performance.now();
    if (now - counted.at >= FLEET_RECOUNT_MS) counted = { at: now, limit: fleetLimit(app.store.devices.count(), AUTO_FLOOR_PER_S) };
    return counted.limit;
  };
}

function deviceAdmission(app: DeviceHost): DeviceAdmission {
  // Real elapsed time (not the App's clock, which tests move): the buckets measure load.
  const now = () => performance.now();
  const limit = fleetLimitOf(app);
  return new DeviceAdmission(limit && { bucket: new RequestBucket(limit, now), limit }, now);
}

/** Made once by the daemon (src/daemon.ts) into the App's services: both listeners share it. */
export function makeDeviceContext(app: DeviceHost, salt: string, limit: FailureLimit = DEFAULT_PROVISION_LIMIT): DeviceContext {
  return {
    salt,
    limiter: new FailureLimiter(limit, () => app.now().getTime()),
    heartbeats: new HeartbeatWriter(app.store, app.log, app.config.heartbeatFlushS * 1000),
    answers: new HeartbeatAnswers(app.store, app.config.heartbeatCache),
    admission: deviceAdmission(app),
  };
}
