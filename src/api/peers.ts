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
      doc: () => ({
        summary: 'List peers', description: 'With any of limit, offset, q, sort or order: one page, and X-Total-Count holds how many peers match.',
        answers: { 200: { description: 'peers by id', shape: ['Peer'] } }, errors: [400, 404],
        query: [{ name: 'limit', schema: { type: 'integer' } }, { name: 'offset', schema: { type: 'integer' } },
          { name: 'q', schema: { type: 'string' }, description: 'found in the name, e-mail, address or public key' },
          { name: 'sort', schema: { enum: ['id', 'name', 'email', 'ip', 'enabled', 'dataLimitGB', 'currentDataUsageBytes', 'expiresAt', 'createdAt', 'latestHandshake'] } },
          { name: 'order', schema: { enum: ['asc', 'desc'] } }],
      }),
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
      doc: () => ({ summary: 'Create a peer', body: 'Peer', answers: { 201: { description: 'created', shape: 'Peer' } }, errors: [400, 404, 413] }),
      async handler(ctx) {
        // A quick 404 before the body; the operation reads the server again in its transaction.
        const serverId = getServer(app, parseId(ctx.params.id, 'server')).id;
        const input = parsePeerInput(await ctx.body(), app.now());
        return created(presentPeer(await createPeer(app, serverId, input, { actor: ctx.actor })));
      },
    },
    {
      method: 'GET', path: '/api/peers/:id', auth: 'control', role: 'viewer',
      doc: () => ({ summary: 'Read a peer', answers: { 200: { description: 'the peer', shape: 'Peer' } }, errors: [404] }),
      handler: (ctx) => ok(presentPeer(getPeer(app, parseId(ctx.params.id, 'peer')))),
    },
    {
      method: 'PUT', path: '/api/peers/:id', auth: 'control', role: 'operator',
      doc: () => ({
        summary: 'Update a peer', body: 'Peer', answers: { 200: { description: 'updated', shape: 'Peer' } },
        errors: [400, 404, 413, [403, 'the role is below the route\'s, or (`field` expiresAt, `role` admin) an expiry set or brought nearer: that schedules a deletion']],
      }),
      async handler(ctx) {
        const id = getPeer(app, parseId(ctx.params.id, 'peer')).id;
        const input = parsePeerInput(await ctx.body(), app.now());
        return ok(presentPeer(await updatePeer(app, id, input, { actor: ctx.actor })));
      },
    },
    {
      method: 'DELETE', path: '/api/peers/:id', auth: 'control', role: PEER_DELETE_ROLE,
      doc: () => ({ summary: 'Delete a peer', answers: { 204: { description: 'deleted' } }, errors: [404] }),
      async handler(ctx) {
        await deletePeer(app, parseId(ctx.params.id, 'peer'), { actor: ctx.actor });
        return noContent();
      },
    },
  ];
}
