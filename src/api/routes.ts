// Every route of the daemon, in one table: the router matches it and the OpenAPI test
// compares it with the document.
import { storageReasons } from '../ops/storage-health';
import { clockReasons } from '../jobs/clock-watch';
import type { App } from '../app';
import type { Route } from '../http/router';
import { ok } from '../http/reply';
import { VERSION } from '../version';
import type * as OpenApiDoc from './openapi-doc';
import { peerFileRoutes } from './peer-files';
import { peerRoutes } from './peers';
import { serverRoutes } from './servers';
import { smtpRoutes } from './smtp';
import { statsRoutes } from './stats';
import { webhookRoutes } from './webhooks';
import { deliveryRoutes } from './deliveries';
import { peerEmailRoutes } from './peer-email';
import { smtpTestRoutes } from './smtp-test';
import { eventStreamRoutes } from './events-stream';
import { deviceApiRoutes } from './devices-api';
import { deviceRoutes } from './devices';
import { forwardRoutes } from './forwards';
import { regTokenRoutes } from './regtokens';
import { siteLinkRoutes } from './site-links';
import { credentialsRoutes } from './credentials';
import { backupRoutes } from './backup';
import { importRoutes } from './import';
import { kernelCheckRoutes } from './kernel-check';
import { sessionRoutes } from '../http/session';
import { pageRoutes } from '../http/static-assets';
import { metricsRoute } from './metrics';
import { trafficHistoryRoutes } from './traffic-history';
import { auditRoutes } from './audit';
import { shareRoutes } from './shares';
import { totpRoutes } from './totp';
import { passkeyRoutes } from './passkeys';
import { passkeySignInRoutes } from './passkey-sign-in';
import { signedInRoutes } from './sessions';
import { oidcRoutes } from '../http/oidc';
import { haRoutes } from './ha';
import { pairOf } from '../ha/pair';

/**
 * Liveness: 200 while the API serves. `degraded` when changes are stored but not (all)
 * applied: the kernel backend is off, a server could not be brought up, or a repair of the
 * kernel keeps failing; `reasons` says why.
 */
function health(app: App) {
  const failures = app.kernel.failures().map((f) => ({ serverID: f.serverId, interface: f.interface, reason: f.reason, since: f.since, attempts: f.attempts, nextRetryAt: f.nextRetryAt }));
  const failingRepairs = (app.kernel.failingRepairs?.() ?? []).map((f) => ({ kind: f.kind, serverID: f.serverId, interface: f.interface, reason: f.reason, since: f.since, attempts: f.attempts, nextRetryAt: f.nextRetryAt }));
  const reasons = [
    ...(app.kernel.state === 'off' ? [`the kernel backend is off: changes are stored but not applied${app.kernel.reason ? ` (${app.kernel.reason})` : ''}`] : []),
    ...failures.map((f) => `server ${f.serverID} (${f.interface}) is down: ${f.reason}`),
    ...failingRepairs.map((f) => `the kernel's ${f.kind} drift${f.interface ? ` on ${f.interface}` : ''} cannot be repaired: ${f.reason}`),
    ...storageReasons(app.config.dataDir, app.runner.writeFailure),
    ...clockReasons(app),
    ...haReasons(app),
  ];
  return {
    status: reasons.length ? 'degraded' : 'ok',
    kernel: app.kernel.state,
    ...(app.kernel.reason ? { kernelReason: app.kernel.reason } : {}),
    ...(reasons.length ? { reasons } : {}),
    ...(failures.length ? { failures } : {}),
    ...(failingRepairs.length ? { failingRepairs } : {}),
    version: VERSION,
  };
}

/** A primary whose standby does not hold its changes (acknowledged changes live on one router only), or a standby that follows nobody. */
function haReasons(app: App): string[] {
  const pair = pairOf(app);
  const partner = pair?.partnerStatus();
  if (!pair || !partner || partner.connected) return [];
  if (pair.role === 'standby') return [`the standby pair is degraded: this standby does not follow a primary at ${partner.url}`];
  return [`the standby pair is degraded: the standby ${partner.url} is not connected, changes are held by this router alone`];
}

export function controlRoutes(app: App): Route[] {
  let document: unknown;
  // Built at its first reading, with the roles the routes below declare.
  const openApi = () => (document ??= (require('./openapi-doc') as typeof OpenApiDoc).openApiDocumentFor(routes));
  const routes: Route[] = [
    { method: 'GET', path: '/healthz', auth: 'none', doc: () => ({ summary: 'Liveness and kernel backend', answers: { 200: { description: 'ready', shape: 'Health' } } }), handler: () => ok(health(app)) },
    {
      method: 'GET', path: '/api/openapi.json', auth: 'control', role: 'viewer',
      doc: () => ({ summary: 'This document', answers: { 200: { description: 'OpenAPI document', shape: { type: 'object' } } } }), handler: () => ok(openApi()),
    },
    ...serverRoutes(app),
    ...peerRoutes(app),
    ...peerFileRoutes(app),
    ...statsRoutes(app, () => ({ totalDevices: app.store.devices.count() })),
    ...webhookRoutes(app),
    ...smtpRoutes(app),
    ...deliveryRoutes(app),
    ...peerEmailRoutes(app),
    ...smtpTestRoutes(app),
    ...eventStreamRoutes(app),
    ...regTokenRoutes(app),
    ...siteLinkRoutes(app),
    ...credentialsRoutes(app),
    ...auditRoutes(app), ...shareRoutes(app), ...totpRoutes(app), ...passkeyRoutes(app), ...signedInRoutes(app),
    ...backupRoutes(app), ...importRoutes(app), ...kernelCheckRoutes(app), ...haRoutes(app),
    ...deviceRoutes(app),
    ...forwardRoutes(app),
    ...trafficHistoryRoutes(app),
    metricsRoute(app, 'control'),
    ...deviceApiRoutes(app),
    // The dashboard: its sign-in and its built page (WGCP_LISTEN only).
    ...sessionRoutes(app), ...passkeySignInRoutes(app), ...oidcRoutes(app), ...pageRoutes(),
  ];
  return routes;
}
