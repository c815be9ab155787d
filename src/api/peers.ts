// /api/servers/:id/peers and /api/peers/:id: HTTP to the peer operations and back.
import createError from 'http-errors';
import type { App } from '../app';
import type { Route } from '../http/router';
import { created, noContent, ok } from '../http/reply';
import { createPeer, deletePeer, getPeer, updatePeer } from '../ops/peers';
import { getServer } from '../ops/servers';
import { presentPeer } from '../views/present';
import { parseId } from './fields';
import { parsePeerInput } from './peer-input';

function readPage(query: URLSearchParams): { limit: number; offset: number } | undefined {
  if (!query.has('limit') && !query.has('offset')) return undefined;
  const num = (name: string, fallback: number, max: number): number => {
    const v = query.get(name);
    if (v === null) return fallback;
    if (!/^\d{1,9}$/.test(v) || Number(v) > max) throw createError(400, `${name} must be a whole number from 0 to ${max}`, { field: name });
    return Number(v);
  };
  return { limit: num('limit', 1000, 10_000), offset: num('offset', 0, 1e9) };
}

export function peerRoutes(app: App): Route[] {
  return [
    {
      method: 'GET', path: '/api/servers/:id/peers', auth: 'control',
      handler(ctx) {
        const server = getServer(app, parseId(ctx.params.id, 'server'));
        return ok(app.store.peers.listByServer(server.id, readPage(ctx.query)).map(presentPeer));
      },
    },
    {
      method: 'POST', path: '/api/servers/:id/peers', auth: 'control',
      async handler(ctx) {
        // A quick 404 before the body; the operation reads the server again in its transaction.
        const serverId = getServer(app, parseId(ctx.params.id, 'server')).id;
        const input = parsePeerInput(await ctx.body());
        return created(presentPeer(createPeer(app, serverId, input)));
      },
    },
    {
      method: 'GET', path: '/api/peers/:id', auth: 'control',
      handler: (ctx) => ok(presentPeer(getPeer(app, parseId(ctx.params.id, 'peer')))),
    },
    {
      method: 'PUT', path: '/api/peers/:id', auth: 'control',
      async handler(ctx) {
        const id = getPeer(app, parseId(ctx.params.id, 'peer')).id;
        const input = parsePeerInput(await ctx.body());
        return ok(presentPeer(updatePeer(app, id, input)));
      },
    },
    {
      method: 'DELETE', path: '/api/peers/:id', auth: 'control',
      handler(ctx) {
        deletePeer(app, parseId(ctx.params.id, 'peer'));
        return noContent();
      },
    },
  ];
}
