// Who may call which route: the least role of every `control` route, in one table. The
// router refuses a caller below it (403 naming the role), the OpenAPI document shows it as
// `x-wgcp-role`, and a route missing here is admin's (the role suite fails on it).
// viewer: reads, without private keys, configs, registration tokens or the backup.
// operator: also peers (not their deletion, nor a device's), configs, QR codes, share links,
// devices, tokens.
// admin: everything, including servers, webhooks, SMTP, keys, backup, restore, import, audit.
import type { Route } from '../http/router';
import type { Role } from '../store/roles';
import { PEER_DELETE_ROLE } from '../ops/deletion-rights';

export const ROUTE_ROLES: Readonly<Record<string, Role>> = {
  'GET /api/openapi.json': 'viewer',
  'GET /api/sessions': 'admin',
  'DELETE /api/sessions/:id': 'admin',
  'DELETE /api/people/:subject/sessions': 'admin',
  'GET /api/servers': 'viewer',
  'POST /api/servers': 'admin',
  'GET /api/servers/:id': 'viewer',
  'PUT /api/servers/:id': 'admin',
  'DELETE /api/servers/:id': 'admin',
  'GET /api/servers/:id/peers': 'viewer',
  'POST /api/servers/:id/peers': 'operator',
  'GET /api/peers/:id': 'viewer',
  'PUT /api/peers/:id': 'operator',
  'DELETE /api/peers/:id': PEER_DELETE_ROLE,
  'GET /api/peers/:id/config': 'operator',
  'GET /api/peers/:id/qrcode': 'operator',
  'POST /api/peers/:id/email': 'operator',
  'POST /api/peers/:id/share': 'operator',
  'GET /api/peers/:id/shares': 'operator',
  'DELETE /api/shares/:id': 'operator',
  'GET /api/peers/:id/usage': 'viewer',
  'GET /api/servers/:id/usage': 'viewer',
  'GET /api/servers/:id/stats': 'viewer',
  'GET /api/stats': 'viewer',
  'GET /api/servers/:id/webhooks': 'viewer',
  'POST /api/servers/:id/webhooks': 'admin',
  'GET /api/webhooks/:id': 'viewer',
  'PUT /api/webhooks/:id': 'admin',
  'DELETE /api/webhooks/:id': 'admin',
  'GET /api/webhooks/:id/deliveries': 'viewer',
  'POST /api/webhooks/:id/test': 'admin',
  'GET /api/settings/smtp': 'viewer',
  'POST /api/settings/smtp': 'admin',
  'POST /api/settings/smtp/test': 'admin',
  'GET /api/events': 'viewer',
  'GET /metrics': 'viewer',
  'GET /api/servers/:id/tokens': 'operator',
  'POST /api/servers/:id/tokens': 'operator',
  'DELETE /api/tokens/:token': 'operator',
  'GET /api/devices': 'viewer',
  'GET /api/devices/:id': 'viewer',
  'PUT /api/devices/:id': 'operator',
  // Removing a device removes its peer: a deletion.
  'DELETE /api/devices/:id': PEER_DELETE_ROLE,
  'POST /api/devices/:id/rotate': 'operator',
  'GET /api/devices/:id/forwards': 'viewer',
  'POST /api/devices/:id/forwards': 'operator',
  'DELETE /api/forwards/:id': 'operator',
  'GET /api/site-links': 'viewer',
  'POST /api/site-links': 'admin',
  'DELETE /api/site-links/:id': 'admin',
  'GET /api/apikeys': 'admin',
  'POST /api/apikeys': 'admin',
  'PUT /api/apikeys/:id': 'admin',
  'DELETE /api/apikeys/:id': 'admin',
  'GET /api/access-tokens': 'admin',
  'POST /api/access-tokens': 'admin',
  'PUT /api/access-tokens/:id': 'admin',
  'DELETE /api/access-tokens/:id': 'admin',
  'POST /api/restore': 'admin',
  'GET /api/backup': 'admin',
  'POST /api/import': 'admin',
  'GET /api/audit': 'admin',
  // `wgcp check` through the daemon: the kernel's links, addresses and tables.
  'GET /api/kernel/check': 'admin',
  // Two-factor sign-in of one's own page session: anyone signed in.
  'GET /api/session/totp': 'viewer',
  'POST /api/session/totp': 'viewer',
  'POST /api/session/totp/confirm': 'viewer',
  'DELETE /api/session/totp': 'viewer',
};

export const routeKey = (method: string, path: string): string => `${method} ${path}`;

/** The routes with their roles set from the table (control routes only). */
export function withRoles(routes: Route[]): Route[] {
  return routes.map((r) => (r.auth === 'control' ? { ...r, role: ROUTE_ROLES[routeKey(r.method, r.path)] } : r));
}
