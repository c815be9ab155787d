// What the device API needs beyond the App: the SERVER_SALT, the limiter of failed
// provisioning attempts, the queue of heartbeat reports and the kept heartbeat answers.
// One context per App, so both listeners share them.
import type { App } from '../app';
import { DEFAULT_PROVISION_LIMIT, FailureLimiter, type FailureLimit } from '../device/failure-limiter';
import { loadServerSalt } from '../device/server-salt';
import { HeartbeatWriter } from '../device/heartbeat-writer';
import { HeartbeatAnswers } from '../device/heartbeat-answers';

export interface DeviceContext { salt: string; limiter: FailureLimiter; heartbeats: HeartbeatWriter; answers: HeartbeatAnswers }

const contexts = new WeakMap<App, DeviceContext>();

/** Called once by the daemon at start; a later call replaces nothing. */
export function attachDeviceContext(app: App, salt: string, limit: FailureLimit = DEFAULT_PROVISION_LIMIT): DeviceContext {
  const existing = contexts.get(app);
  if (existing) return existing;
  const ctx = {
    salt,
    limiter: new FailureLimiter(limit, () => app.now().getTime()),
    heartbeats: new HeartbeatWriter(app.store, app.log, app.config.heartbeatFlushS * 1000),
    answers: new HeartbeatAnswers(app.store, app.config.heartbeatCache),
  };
  contexts.set(app, ctx);
  return ctx;
}

export function deviceContext(app: App): DeviceContext {
  return contexts.get(app) ?? attachDeviceContext(app, loadServerSalt(app.config.serverSalt, app.config.dataDir).salt);
}
