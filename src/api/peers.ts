// /api/servers/:id/peers and /api/peers/:id: HTTP to the peer operations and back.
import type { App } from '../app';
import type { Route } from '../http/router';
import { created, noContent, ok } from '../http/reply';
import { createPeer, deletePeer, getPeer, updatePeer } from '../ops/peers';
import { getServer } from '../ops/servers';
import { presentPeer } from '../views/present';
import { parseId } from './fields';
import { parsePeerInput } from './peer-input';
import { readPeerQuery } from './peer-query';
import { PEER_DELETE_ROLE } from '../ops/deletion-rights';

export function peerRoutes(app: App): Route[] {
  return [
    {
      method: 'GET', path: '/api/servers/:id/peers', auth: 'control', role: 'viewer',
      handler(ctx) {
        const server = getServer(app, parseId(ctx.params.id, 'server'));
        const query = readPeerQuery(ctx.query);
        if (!query) return ok(app.store.peers.listByServer(server.id).map(presentPeer));
        // A page answers with the number of all the peers that match, for the pager.
        const { rows, total } = app.store.peers.search(server.id, query);
        return { ...ok(rows.map(presentPeer)), headers: { 'X-Total-Count': String(total) } };
      },
    },
    {
      method: 'POST', path: '/api/servers/:id/peers', auth: 'control', role: 'operator',
      async handler(ctx) {
        // A quick 404 before the body; the operation reads the server again in its transaction.
        const serverId = getServer(app, parseId(ctx.params.id, 'server')).id;
        const input = parsePeerInput(await ctx.body(), app.now());
        return created(presentPeer(await createPeer(app, serverId, input, { actor: ctx.actor })));
      },
    },
    {
      method: 'GET', path: '/api/peers/:id', auth: 'control', role: 'viewer',
      handler: (ctx) => ok(presentPeer(getPeer(app, parseId(ctx.params.id, 'peer')))),
    },
    {
      method: 'PUT', path: '/api/peers/:id', auth: 'control', role: 'operator',
      async handler(ctx) {
        const id = getPeer(app, parseId(ctx.params.id, 'peer')).id;
        const input = parsePeerInput(await ctx.body(), app.now());
        return ok(presentPeer(await updatePeer(app, id, input, { actor: ctx.actor })));
      },
    },
    {
      method: 'DELETE', path: '/api/peers/:id', auth: 'control', role: PEER_DELETE_ROLE,
      async handler(ctx) {
        await deletePeer(app, parseId(ctx.params.id, 'peer'), { actor: ctx.actor });
        return noContent();
      },
    },
  ];
}
