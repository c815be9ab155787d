// Starts wgcpd: the store, the kernel backend (reconciled once), the event bus and the
// HTTP listener. `close()` stops everything in reverse order.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { App } from './app';
import type { Config } from './config';
import { createLogger, type Logger } from './log';
import { Store } from './store/store';
import { EventBus } from './events/bus';
import { selectKernel } from './kernel/select';
import type { KernelPlane } from './kernel/plane';
import { ensureFirstApiKey } from './first-key';
import { createRequestHandler } from './http/server';
import { CONTROL_BODY_LIMIT } from './http/body';
import { authenticate } from './http/auth';
import { controlRoutes } from './api/routes';
import type { Route } from './http/router';

export interface DaemonOptions {
  log?: Logger;
  now?: () => Date;
  kernel?: KernelPlane;
}

export interface Daemon {
  app: App;
  port: number;
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
  try {
    kernel = opts.kernel ?? selectKernel(config, log);
    kernel.reconcile(store.servers.list().map((server) => ({ server, peers: store.peers.listByServer(server.id), forwards: [] })));
    const app: App = { config, store, kernel, events: new EventBus(log, now), log, now };
    ensureFirstApiKey(store, config, log, now().toISOString());

    const routes = controlRoutes(app);
    const handler = createRequestHandler({
      routes,
      log,
      bodyLimit: CONTROL_BODY_LIMIT,
      authenticate: (req) => authenticate(req, store, config.apiKey, now().toISOString()),
    });
    const server = http.createServer({ requestTimeout: 30_000, headersTimeout: 15_000 }, handler);
    const port = await listen(server, config.listen.host, config.listen.port);
    log.info('wgcpd is listening', { host: config.listen.host, port, kernel: kernel.state, dataDir: config.dataDir });

    const close = async () => {
      await new Promise<void>((resolve) => { server.close(() => resolve()); server.closeAllConnections(); });
      await kernel!.close();
      store.close();
    };
    return { app, port, routes, close };
  } catch (err) {
    await kernel?.close();
    store.close();
    throw err;
  }
}
