// /api/servers: create, list, read, update and delete WireGuard servers.
import createError from 'http-errors';
import type { App } from '../app';
import type { Route } from '../http/router';
import { created, noContent, ok } from '../http/reply';
import type { ServerRecord } from '../store/servers';
import { generateKeyPair } from '../wg/keys';
import { parseCidr, formatIpv4 } from '../wg/ipv4';
import { parseId, required } from './fields';
import { presentServer } from './present';
import { foreignLinkError } from '../wg/link-owner';
import { checkServerConflicts, defaultInterfaceName, endpointPort, nextFreeAddress, parseServerInput } from './server-input';

export function findServer(app: App, idText: string): ServerRecord {
  const server = app.store.servers.get(parseId(idText, 'server'));
  if (!server) throw createError(404, 'server not found');
  return server;
}

export function showServer(app: App, s: ServerRecord) {
  return presentServer(s, app.store.peers.listByServer(s.id), app.store.webhooks.listByServer(s.id), app.kernel.serverState(s.id));
}

const serverIp = (address: string): string => formatIpv4(parseCidr(address)!.ip);

export function serverRoutes(app: App): Route[] {
  const { store, kernel, events } = app;
  return [
    {
      method: 'GET', path: '/api/servers', auth: 'control',
      handler: () => ok(store.servers.list().map((s) => showServer(app, s))),
    },
    {
      method: 'POST', path: '/api/servers', auth: 'control',
      async handler(ctx) {
        const input = parseServerInput(await ctx.body());
        const endpoint = required(input.endpoint, 'endpoint');
        const now = app.now().toISOString();
        const server = store.tx(() => {
          const address = input.address ?? nextFreeAddress(store);
          const keys = generateKeyPair();
          const draft = {
            name: required(input.name, 'name'),
            endpoint,
            mode: required(input.mode, 'mode'),
            interface: input.interface ?? `wgcp-new-${process.pid}`,
            address,
            listenPort: input.listenPort ?? endpointPort(endpoint)!,
            dns: input.dns ?? serverIp(address),
            mtu: input.mtu ?? null,
            privateKey: keys.privateKey,
            publicKey: keys.publicKey,
            createdAt: now,
            updatedAt: now,
          };
          checkServerConflicts(store, draft);
          if (input.interface !== undefined && kernel.isForeignLink(draft.interface)) throw foreignLinkError(draft.interface);
          const rec = store.servers.insert(draft);
          if (input.interface === undefined) {
            rec.interface = defaultInterfaceName(store, rec.id, (name) => kernel.isForeignLink(name));
            store.servers.update(rec);
          }
          kernel.applyServer({ before: null, after: rec, peers: [], forwards: [] });
          return rec;
        });
        const shown = showServer(app, server);
        events.publish('serverChanged', server.id, { change: 'created', server: shown });
        return created(shown);
      },
    },
    {
      method: 'GET', path: '/api/servers/:id', auth: 'control',
      handler: (ctx) => ok(showServer(app, findServer(app, ctx.params.id))),
    },
    {
      method: 'PUT', path: '/api/servers/:id', auth: 'control',
      async handler(ctx) {
        const before = findServer(app, ctx.params.id);
        const input = parseServerInput(await ctx.body());
        const after = store.tx(() => {
          const current = store.servers.get(before.id);
          if (!current) throw createError(404, 'server not found');
          const next: ServerRecord = {
            ...current,
            name: input.name ?? current.name,
            endpoint: input.endpoint ?? current.endpoint,
            mode: input.mode ?? current.mode,
            interface: input.interface ?? current.interface,
            address: input.address ?? current.address,
            listenPort: input.listenPort ?? current.listenPort,
            dns: input.dns ?? current.dns,
            mtu: input.mtu === undefined ? current.mtu : input.mtu,
            updatedAt: app.now().toISOString(),
          };
          checkServerConflicts(store, next);
          if (next.interface !== current.interface && kernel.isForeignLink(next.interface)) throw foreignLinkError(next.interface);
          store.servers.update(next);
          kernel.applyServer({ before: current, after: next, peers: store.peers.listByServer(next.id), forwards: store.forwards.kernelForwardsOfServer(next.id) });
          return next;
        });
        const shown = showServer(app, after);
        events.publish('serverChanged', after.id, { change: 'updated', server: shown });
        return ok(shown);
      },
    },
    {
      method: 'DELETE', path: '/api/servers/:id', auth: 'control',
      handler(ctx) {
        const server = findServer(app, ctx.params.id);
        const peers = store.peers.listByServer(server.id);
        store.tx(() => {
          store.servers.delete(server.id);
          kernel.applyServer({ before: server, after: null, peers: [], forwards: [] });
        });
        // Deleting a server deletes its peers: each is announced like any other delete.
        for (const p of peers) events.publish('peerDeleted', server.id, { peer: { id: p.id, ip: p.ip, publicKey: p.publicKey, name: p.name } });
        events.publish('serverChanged', server.id, { change: 'deleted', server: { id: server.id, name: server.name } });
        return noContent();
      },
    },
  ];
}
