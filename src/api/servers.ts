// /api/servers: HTTP to the server operations and back.
import { fieldError } from '../error-registry';
import type { App } from '../app';
import type { Route } from '../http/router';
import { created, noContent, ok } from '../http/reply';
import { createServer, deleteServer, getServer, showServer, updateServer } from '../ops/servers';
import { parseId } from './fields';
import { parseServerInput } from './server-input';

/** `?peers=none` leaves each server's peers out of the answer. */
function peersWanted(query: URLSearchParams): boolean {
  const v = query.get('peers');
  if (v !== null && v !== 'none') throw fieldError('peers', 'must be "none" or left out');
  return v === null;
}

export function serverRoutes(app: App): Route[] {
  const serverOf = (idText: string) => getServer(app, parseId(idText, 'server'));
  return [
    {
      method: 'GET', path: '/api/servers', auth: 'control', role: 'viewer',
      doc: () => ({
        summary: 'List servers', answers: { 200: { description: 'servers by id', shape: ['Server'] } }, errors: [400],
        query: [{ name: 'peers', description: '"none": each server without its peers (light at 10,000 peers)', schema: { enum: ['none'] } }],
      }),
      handler: (ctx) => {
        const withPeers = peersWanted(ctx.query);
        return ok(app.store.servers.list().map((s) => showServer(app, s, ctx.actor?.role, { withPeers })));
      },
    },
    {
      method: 'POST', path: '/api/servers', auth: 'control', role: 'admin',
      doc: () => ({ summary: 'Create a server', body: 'Server', answers: { 201: { description: 'created', shape: 'Server' } }, errors: [400, 413] }),
      async handler(ctx) {
        const input = parseServerInput(await ctx.body());
        return created(showServer(app, await createServer(app, input, { actor: ctx.actor }), ctx.actor?.role));
      },
    },
    {
      method: 'GET', path: '/api/servers/:id', auth: 'control', role: 'viewer',
      doc: () => ({ summary: 'Read a server', answers: { 200: { description: 'the server', shape: 'Server' } }, errors: [404] }),
      handler: (ctx) => ok(showServer(app, serverOf(ctx.params.id), ctx.actor?.role, { withPeers: peersWanted(ctx.query) })),
    },
    {
      method: 'PUT', path: '/api/servers/:id', auth: 'control', role: 'admin',
      doc: () => ({
        summary: 'Update a server', body: 'Server', answers: { 200: { description: 'updated', shape: 'Server' } }, errors: [400, 404, 413],
        query: [{ name: 'peers', description: '"none": the answer without the server\'s peers (light at 10,000 peers)', schema: { enum: ['none'] } }],
      }),
      async handler(ctx) {
        const id = serverOf(ctx.params.id).id;
        const withPeers = peersWanted(ctx.query);
        const input = parseServerInput(await ctx.body());
        return ok(showServer(app, await updateServer(app, id, input, { actor: ctx.actor }), ctx.actor?.role, { withPeers }));
      },
    },
    {
      method: 'DELETE', path: '/api/servers/:id', auth: 'control', role: 'admin',
      doc: () => ({ summary: 'Delete a server with its peers and webhooks', answers: { 204: { description: 'deleted' } }, errors: [404] }),
      async handler(ctx) {
        await deleteServer(app, parseId(ctx.params.id, 'server'), { actor: ctx.actor });
        return noContent();
      },
    },
  ];
}
