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

/** Where this router stands in its pair: the answer of both routes. */
const HA_STATUS = () => ({
  type: 'object', required: ['role', 'epoch', 'sequence', 'partner'],
  properties: {
    role: { enum: ['primary', 'standby', 'alone'], description: 'alone: no WGCP_HA_PARTNER' },
    epoch: { type: 'integer', description: 'raised by each promotion' },
    sequence: { type: 'integer', description: 'the last committed change this router holds' },
    partner: {
      type: ['object', 'null'], required: ['url', 'connected', 'behind'],
      properties: {
        url: { type: 'string' }, connected: { type: 'boolean', description: 'false on a primary: the pair is degraded (changes are not held by the standby)' },
        behind: { type: 'integer', description: 'changes the standby does not hold yet' },
      },
    },
  },
});

export function haRoutes(app: App): Route[] {
  const control = () => {
    const c = pairControlOf(app);
    if (!c) throw apiError('WGCP_HA_NOT_PAIRED');
    return c;
  };
  return [
    {
      method: 'GET', path: '/api/ha', auth: 'control', role: 'viewer',
      doc: () => ({ summary: 'Where this router stands in its standby pair (any role)', answers: { 200: { description: 'the pair', shape: HA_STATUS() } } }),
      handler: () => ({ ...ok(control().status()), headers: { 'Cache-Control': 'no-store' } }),
    },
    {
      method: 'POST', path: '/api/ha/notify', auth: 'control', role: 'admin',
      doc: () => ({
        summary: 'keepalived\'s state for this router (`wgcp ha notify STATE`, on the admin socket only): MASTER promotes it (a new epoch) while it holds WGCP_HA_VIRTUAL_ADDRESS, BACKUP makes it follow, FAULT stops it acting as primary',
        body: { type: 'object', required: ['state'], properties: { state: { enum: ['MASTER', 'BACKUP', 'FAULT'] } } },
        answers: { 200: { description: 'the pair after the notice', shape: HA_STATUS() } },
        errors: [[400, 'state is not MASTER, BACKUP or FAULT'], [403, 'not on the admin socket'], [409, 'no partner is configured, or this router does not hold the virtual address']],
      }),
      async handler(ctx) {
        if (ctx.actor !== ADMIN_SOCKET_ACTOR) throw apiError('WGCP_FORBIDDEN_ROLE', { role: 'the admin socket (wgcp ha notify)' });
        const state = String((await ctx.body()).state ?? '').toUpperCase();
        if (!STATES.includes(state as NotifyState)) throw apiError('WGCP_HA_STATE_UNKNOWN', { state }, { field: 'state' });
        return ok(await control().notify(state as NotifyState));
      },
    },
  ];
}
