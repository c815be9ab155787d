// Starts wgcpd: the store, the kernel backend (its table loaded, then each server synced), the event bus and the
// HTTP listener. `close()` stops everything in reverse order.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { App } from './app';
import type { Config } from './config';
import { createLogger, type Logger } from './log';
import { Store } from './store/store';
import { EventBus } from './events/bus';
import { ChangeRunner } from './ops/runner';
import { selectKernel } from './kernel/select';
import type { KernelPlane } from './kernel/plane';
import { ensureFirstApiKey } from './first-key';
import { createRequestHandler } from './http/server';
import { ADMIN_SOCKET_ACTOR, closeAdminSocket, listenAdminSocket } from './http/admin-socket';
import { CONTROL_BODY_LIMIT } from './http/body';
import { authenticate, authenticateHeld, stillHeld } from './http/auth';
import { controlRoutes } from './api/routes';
import { deviceApiRoutes } from './api/devices-api';
import { startJobs } from './jobs/schedule';
import { startReconciler } from './jobs/reconcile';
import { syncAtStartUp } from './ops/kernel-sync';
import { startEventServices, type EventServiceOptions } from './events/services';
import type { Route } from './http/router';
import type { FailureLimit } from './device/failure-limiter';
import { createDeviceServer } from './device/listener';
import { loadServerSalt } from './device/server-salt';
import { MetricsTally } from './metrics/tally';
import { kernelTiming } from './metrics/kernel-timing';
import { observeRequests } from './metrics/http-observer';
import { createMetricsServer } from './api/metrics';
import { withServices } from './services';
import { startPair } from './ha/start';
import { wakeOnPromotion } from './ha/wake-peers';
import { siteLinksFollowRole } from './ops/site-links-role';

const ADOPT_STATE = 'adoptUnmarkedLinks';

export interface DaemonOptions {
  log?: Logger;
  now?: () => Date;
  kernel?: KernelPlane;
  /** Webhook retry timing and whether the jobs are scheduled (tests drive them by hand). */
  events?: Omit<EventServiceOptions, 'authenticate' | 'stillHeld'> & { schedule?: boolean };
  /** Failed provisioning attempts allowed per source address and window (default 30 in 5 min). */
  provisionLimit?: FailureLimit;
}

export interface Daemon {
  app: App;
  port: number;
  /** The WGCP_DEVICE_LISTEN port, or null when that listener is not configured. */
  devicePort: number | null;
  /** The WGCP_METRICS_LISTEN port, or null when that listener is not configured. */
  metricsPort: number | null;
  /** Every route the main listener serves (the OpenAPI test compares them with the document). */
  routes: readonly Route[];
  close(): Promise<void>;
}

function listen(server: http.Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

export async function startDaemon(config: Config, opts: DaemonOptions = {}): Promise<Daemon> {
  const log = opts.log ?? createLogger(config.logLevel);
  const now = opts.now ?? (() => new Date());
  const store = Store.open(config.dataDir);
  let kernel: KernelPlane | undefined;
  let adminSocket: http.Server | null = null;
  let closePair = async (): Promise<void> => {};
  try {
    const tally = new MetricsTally();
    const timing = kernelTiming(tally);
    const plane: KernelPlane = opts.kernel ?? selectKernel(config, log);
    kernel = plane;
    // A database from before links were marked adopts its servers' links once, by name.
    const adoptUnmarked = store.jobState.get(ADOPT_STATE) === '1';
    // Fail-closed start-up: the table first (prepare), then each server through its one sync, then the site links.
    const events = new EventBus(log, now);
    const runner = new ChangeRunner(store, plane, events, log, timing);
    await timing.time('reconcile', async () => {
      await plane.prepare(store.servers.list().map((server) => ({ server, peers: store.peers.kernelPeersOf(server.id), forwards: store.forwards.kernelForwardsOfServer(server.id) })), { adoptUnmarked });
      await syncAtStartUp({ runner, store, kernel: plane, log });
    });
    if (adoptUnmarked && kernel.state === 'on') store.jobState.set(ADOPT_STATE, '0');
    for (const f of kernel.failures()) log.error('server is down: wgcpd runs without it and retries', { serverID: f.serverId, interface: f.interface, reason: f.reason });
    const salt = loadServerSalt(config.serverSalt, config.dataDir);
    if (salt.origin === 'generated') log.info('generated the device API salt (SERVER_SALT)', { saltFile: salt.file });
    // The one services object: each made here once, handed down in the App (docs/development.md, "Services").
    const core = { config, store, kernel, events, runner, log, now };
    const app: App = withServices(core, { metrics: tally, salt: salt.salt, provisionLimit: opts.provisionLimit });
    // The standby pair before any change: its journal hook, its role (a standby refuses writes), its channel.
    const pair = await startPair(app);
    closePair = () => pair.close();
    await siteLinksFollowRole(app, pair.pair);
    wakeOnPromotion(app, log);
    ensureFirstApiKey(store, config, log, now().toISOString());

    const routes = controlRoutes(app);
    const handler = createRequestHandler({
      routes,
      log,
      bodyLimit: CONTROL_BODY_LIMIT,
      logRequests: config.logLevel === 'debug',
      authenticate: (req) => authenticate(req, store, config.apiKey, now().toISOString()),
    });
    const server = http.createServer({ requestTimeout: 30_000, headersTimeout: 15_000 }, handler);
    // Made before anything listens, so that an unreadable certificate stops the start cleanly.
    const deviceRoutes = deviceApiRoutes(app);
    const deviceServer = config.deviceListen ? createDeviceServer(app, deviceRoutes) : null;
    const metricsServer = config.metricsListen ? createMetricsServer(app) : null;
    observeRequests(server, 'api', routes, tally);
    if (deviceServer) observeRequests(deviceServer, 'device', deviceRoutes, tally);
    // The same API on the data folder's socket, for `wgcp` on the router: its file mode is its credential.
    adminSocket = await listenAdminSocket(config.dataDir, createRequestHandler({
      routes, log, bodyLimit: CONTROL_BODY_LIMIT, logRequests: config.logLevel === 'debug', authenticate: () => ADMIN_SOCKET_ACTOR,
    })).catch((err: Error) => { log.warn('the admin socket could not be made: wgcp works on the database alone', { error: err.message }); return null; });
    const port = await listen(server, config.listen.host, config.listen.port);
    log.info('wgcpd is listening', { host: config.listen.host, port, kernel: kernel.state, dataDir: config.dataDir });
    let devicePort: number | null = null;
    if (config.deviceListen && deviceServer) {
      devicePort = await listen(deviceServer, config.deviceListen.host, config.deviceListen.port).catch((err) => {
        server.close();
        throw err;
      });
      log.info('device API is listening', { host: config.deviceListen.host, port: devicePort, tls: config.tlsCert !== null });
    } else if (config.tlsCert !== null) {
      log.warn('WGCP_TLS_CERT is set but WGCP_DEVICE_LISTEN is not: TLS applies only to the device listener');
    }
    let metricsPort: number | null = null;
    if (config.metricsListen && metricsServer) {
      metricsPort = await listen(metricsServer, config.metricsListen.host, config.metricsListen.port).catch((err) => {
        server.close();
        deviceServer?.close();
        throw err;
      });
      log.info('metrics are served without credentials', { host: config.metricsListen.host, port: metricsPort });
    }
    // Webhooks, mail, the event stream (on this listener's upgrade), then the jobs.
    const { schedule, ...eventOptions } = opts.events ?? {};
    const services = startEventServices(app, server, {
      ...eventOptions,
      authenticate: (headers) => authenticateHeld({ headers }, store, config.apiKey, now().toISOString()).held,
      stillHeld: (held) => stillHeld(held, store, config.apiKey, now().toISOString()),
    });
    // The kernel kept true: drift made under the daemon is found and repaired (docs/kernel.md).
    // The jobs that write and the reconciler run only where changes are taken: never on a standby.
    const startWriters = () => {
      if (schedule === false) return null;
      const w = { jobs: startJobs(app, { afterUsage: () => services.stream.publishUsage() }), reconciler: startReconciler(app) };
      app.services.clockWatch = w.jobs.clockWatch;
      app.services.reconciler = w.reconciler;
      return w;
    };
    let writers = pair.pair.acts() ? startWriters() : null;
    let writersStopped: Promise<void> = Promise.resolve();
    pair.pair.onRole(() => {
      if (pair.pair.acts() && !writers) writers = startWriters();
      else if (!pair.pair.acts() && writers) {
        const w = writers;
        writers = null;
        app.services.clockWatch = null;
        app.services.reconciler = null;
        writersStopped = Promise.all([w.jobs.stop(), w.reconciler?.stop()]).then(() => {});
      }
    });

    const close = async () => {
      // The event streams first: the listener's close() waits for every socket it accepted,
      // upgraded ones included, and a page holds its stream open for ever.
      const listenerClosed = new Promise<void>((resolve) => { server.close(() => resolve()); server.closeAllConnections(); });
      await services.stream.close();
      await listenerClosed;
      await closeAdminSocket(adminSocket, config.dataDir);
      await pair.close();
      // The last collection still publishes events, so the consumers stop after the jobs.
      await writers?.jobs.stop();
      await writers?.reconciler?.stop();
      await writersStopped;
      // Changes asked for before the listener closed end (commit or fail) before anything stops.
      await app.runner.idle();
      if (metricsServer) await new Promise<void>((resolve) => { metricsServer.close(() => resolve()); metricsServer.closeAllConnections(); });
      app.services.history.close();
      await services.stop();
      if (deviceServer) await new Promise<void>((resolve) => { deviceServer.close(() => resolve()); deviceServer.closeAllConnections(); });
      await kernel!.close();
      app.services.device.heartbeats.flush();
      store.close();
    };
    return { app, port, devicePort, metricsPort, routes, close };
  } catch (err) {
    await closeAdminSocket(adminSocket, config.dataDir);
    await closePair();
    await kernel?.close();
    store.close();
    throw err;
  }
}
