// The standby pair's routes (docs/ha.md): GET /api/ha on any role, and keepalived's notify,
// POST /api/ha/notify {"state": "MASTER" | "BACKUP" | "FAULT"}, taken on the admin socket
// only (`wgcp ha notify STATE`): a key over the network cannot move the pair's roles.
import type { App } from '../app';
import { apiError } from '../error-registry';
import type { Route } from '../http/router';
import { ok } from '../http/reply';
import { ADMIN_SOCKET_ACTOR } from '../http/admin-socket';
import { pairControlOf, type NotifyState } from '../ha/start';

const STATES: readonly NotifyState[] = ['MASTER', 'BACKUP', 'FAULT'];

export function haRoutes(app: App): Route[] {
  const control = () => {
    const c = pairControlOf(app);
    if (!c) throw apiError('WGCP_HA_NOT_PAIRED');
    return c;
  };
  return [
    {
      method: 'GET', path: '/api/ha', auth: 'control', role: 'viewer',
      handler: () => ({ ...ok(control().status()), headers: { 'Cache-Control': 'no-store' } }),
    },
    {
      method: 'POST', path: '/api/ha/notify', auth: 'control', role: 'admin',
      async handler(ctx) {
        if (ctx.actor !== ADMIN_SOCKET_ACTOR) throw apiError('WGCP_FORBIDDEN_ROLE', { role: 'the admin socket (wgcp ha notify)' });
        const state = String((await ctx.body()).state ?? '').toUpperCase();
        if (!STATES.includes(state as NotifyState)) throw apiError('WGCP_HA_STATE_UNKNOWN', { state }, { field: 'state' });
        return ok(await control().notify(state as NotifyState));
      },
    },
  ];
}
