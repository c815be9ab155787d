// What the device API needs beyond the App: the SERVER_SALT and the limiter of failed
// provisioning attempts. One context per App, so both listeners share one limiter.
import type { App } from '../app';
import { DEFAULT_PROVISION_LIMIT, FailureLimiter, type FailureLimit } from '../device/failure-limiter';
import { loadServerSalt } from '../device/server-salt';
import { HeartbeatWriter } from '../device/heartbeat-writer';

export interface DeviceContext { salt: string; limiter: FailureLimiter; heartbeats: HeartbeatWriter }

const contexts = new WeakMap<App, DeviceContext>();

/** Called once by the daemon at start; a later call replaces nothing. */
export function attachDeviceContext(app: App, salt: string, limit: FailureLimit = DEFAULT_PROVISION_LIMIT): DeviceContext {
  const existing = contexts.get(app);
  if (existing) return existing;
  const ctx = { salt, limiter: new FailureLimiter(limit, () => app.now().getTime()), heartbeats: new HeartbeatWriter(app.store, app.log) };
  contexts.set(app, ctx);
  return ctx;
}

export function deviceContext(app: App): DeviceContext {
  return contexts.get(app) ?? attachDeviceContext(app, loadServerSalt(app.config.serverSalt, app.config.dataDir).salt);
}
