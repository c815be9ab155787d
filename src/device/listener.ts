// The WGCP_DEVICE_LISTEN listener: the device API alone (never the control plane), over
// HTTPS with TLS 1.2 at least when WGCP_TLS_CERT/KEY are set, plain HTTP otherwise.
import fs from 'node:fs';
import http from 'node:http';
import type https from 'node:https';
import { apiError } from '../error-registry';
import type { App } from '../app';
import { createRequestHandler } from '../http/server';
import type { Route } from '../http/router';
import { DEVICE_BODY_LIMIT } from '../http/body';
import { registerOwnListener } from '../net/own-listeners';
import { warnIfPlainHttp } from './plain-http-warning';

const TIMEOUTS = { requestTimeout: 30_000, headersTimeout: 15_000, keepAliveTimeout: 65_000 };

function readPem(file: string, variable: string): Buffer {
  try {
    return fs.readFileSync(file);
  } catch (err) {
    throw new Error(`${variable} ${file} cannot be read: ${(err as Error).message}`);
  }
}

/** `routes`: the device API's routes, handed over by the daemon's wiring. */
export function createDeviceServer(app: App, routes: Route[]): http.Server {
  const handler = createRequestHandler({
    routes,
    log: app.log,
    bodyLimit: DEVICE_BODY_LIMIT,
    logRequests: app.config.logLevel === 'debug',
    // Every device route is auth 'none'; nothing here may accept control credentials.
    authenticate: () => { throw apiError('WGCP_UNAUTHORIZED'); },
  });
  const { tlsCert, tlsKey } = app.config;
  const plain = tlsCert === null || tlsKey === null;
  const server = plain
    ? http.createServer(TIMEOUTS, handler)
    // node:https (and TLS) only for a TLS listener.
    : (require('node:https') as typeof https).createServer({ ...TIMEOUTS, cert: readPem(tlsCert, 'WGCP_TLS_CERT'), key: readPem(tlsKey, 'WGCP_TLS_KEY'), minVersion: 'TLSv1.2' }, handler);
  registerOwnListener(server);
  warnIfPlainHttp(app.log, server, 'WGCP_DEVICE_LISTEN', !plain);
  return server;
}
