// Server operations, shared by the API and the CLI: create, update and delete, each in one
// transaction with its kernel change, then its events. A name held by a router link that
// wgcp did not make is a conflict, never a takeover.
import createError from 'http-errors';
import type { App } from '../app';
import type { ServerMode, ServerRecord } from '../store/servers';
import { presentServer } from '../views/present';
import { generateKeyPair } from '../wg/keys';
import { formatIpv4, parseCidr } from '../wg/ipv4';
import { foreignLinkError } from '../wg/link-owner';
import { badField } from './field-error';
import { checkServerConflicts, defaultInterfaceName, endpointPort, nextFreeAddress } from './server-rules';
import { checkServer6, nextFreeAddress6 } from './server-rules6';

/** A server's fields as an operation takes them; left out means "as it is" (or the default on create). */
export interface ServerInput {
  name?: string;
  endpoint?: string;
  mode?: ServerMode;
  interface?: string;
  address?: string;
  /** null: an IPv4-only server; left out on create: a unique local /64. */
  address6?: string | null;
  listenPort?: number;
  dns?: string;
  mtu?: number | null;
}

export function getServer(app: App, id: number): ServerRecord {
  const server = app.store.servers.get(id);
  if (!server) throw createError(404, 'server not found');
  return server;
}

/**
 * The server as the API and the events show it: with its peers, webhooks and kernel state.
 * `withPeers: false` leaves the peers out (and does not read them): a page of servers at
 * 10,000 peers is then a few hundred bytes, not megabytes.
 */
export function showServer(app: App, s: ServerRecord, opts: { withPeers?: boolean } = {}) {
  const shown = presentServer(s, opts.withPeers === false ? [] : app.store.peers.listByServer(s.id), app.store.webhooks.listByServer(s.id), app.kernel.serverState(s.id));
  if (opts.withPeers !== false) return shown;
  const { peers: _left, ...rest } = shown;
  return rest;
}

const serverIp = (address: string): string => formatIpv4(parseCidr(address)!.ip);

function need<T>(value: T | undefined, field: string): T {
  if (value === undefined) throw badField(field, 'is required');
  return value;
}

export function createServer(app: App, input: ServerInput): ServerRecord {
  const { store, kernel } = app;
  const endpoint = need(input.endpoint, 'endpoint');
  const now = app.now().toISOString();
  const server = store.tx(() => {
    const address = input.address ?? nextFreeAddress(store);
    const keys = generateKeyPair();
    const draft = {
      name: need(input.name, 'name'),
      endpoint,
      mode: need(input.mode, 'mode'),
      interface: input.interface ?? `wgcp-new-${process.pid}`,
      address,
      address6: input.address6 === undefined ? nextFreeAddress6(store) : input.address6,
      listenPort: input.listenPort ?? endpointPort(endpoint)!,
      dns: input.dns ?? serverIp(address),
      mtu: input.mtu ?? null,
      privateKey: keys.privateKey,
      publicKey: keys.publicKey,
      createdAt: now,
      updatedAt: now,
    };
    checkServerConflicts(store, draft);
    checkServer6(store, draft);
    if (input.interface !== undefined && kernel.isForeignLink(draft.interface)) throw foreignLinkError(draft.interface);
    const rec = store.servers.insert(draft);
    if (input.interface === undefined) {
      rec.interface = defaultInterfaceName(store, rec.id, (name) => kernel.isForeignLink(name));
      store.servers.update(rec);
    }
    kernel.applyServer({ before: null, after: rec, peers: [], forwards: [] });
    return rec;
  });
  app.events.publish('serverChanged', server.id, { change: 'created', server: showServer(app, server, { withPeers: false }) });
  return server;
}

export function updateServer(app: App, id: number, input: ServerInput): ServerRecord {
  const { store, kernel } = app;
  const after = store.tx(() => {
    const current = getServer(app, id);
    const next: ServerRecord = {
      ...current,
      name: input.name ?? current.name,
      endpoint: input.endpoint ?? current.endpoint,
      mode: input.mode ?? current.mode,
      interface: input.interface ?? current.interface,
      address: input.address ?? current.address,
      address6: input.address6 === undefined ? current.address6 : input.address6,
      listenPort: input.listenPort ?? current.listenPort,
      dns: input.dns ?? current.dns,
      mtu: input.mtu === undefined ? current.mtu : input.mtu,
      updatedAt: app.now().toISOString(),
    };
    checkServerConflicts(store, next);
    if (next.address6 !== current.address6) checkServer6(store, next);
    if (next.interface !== current.interface && kernel.isForeignLink(next.interface)) throw foreignLinkError(next.interface);
    store.servers.update(next);
    // The plane keeps the peers it holds: reading them all again made every update O(peers).
    kernel.applyServer({ before: current, after: next, peers: [], forwards: store.forwards.kernelForwardsOfServer(next.id) });
    return next;
  });
  // Without its peers: at 10,000 peers the event (and each webhook body) would be megabytes.
  app.events.publish('serverChanged', after.id, { change: 'updated', server: showServer(app, after, { withPeers: false }) });
  return after;
}

/** Deletes a server with its peers and webhooks; each peer is announced like any other delete. */
export function deleteServer(app: App, id: number): void {
  const { store, kernel } = app;
  const { server, peers } = store.tx(() => {
    const server = getServer(app, id);
    const peers = store.peers.listByServer(server.id);
    store.servers.delete(server.id);
    kernel.applyServer({ before: server, after: null, peers: [], forwards: [] });
    return { server, peers };
  });
  for (const p of peers) app.events.publish('peerDeleted', server.id, { peer: { id: p.id, ip: p.ip, publicKey: p.publicKey, name: p.name } });
  app.events.publish('serverChanged', server.id, { change: 'deleted', server: { id: server.id, name: server.name } });
}
