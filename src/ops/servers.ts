// Server operations, shared by the API and the CLI: create, update and delete, each a plan
// for the change runner with its kernel change and its events. A name held by a router
// link that wgcp did not make is a conflict, never a takeover.
import { apiError } from '../error-registry';
import type { App } from '../app';
import type { ServerMode, ServerRecord } from '../store/servers';
import { presentServer } from '../views/present';
import type { Role } from '../store/roles';
import { serverEventData } from '../views/event-data';
import type { ChangeOptions } from './runner';
import { generateKeyPair } from '../wg/keys';
import { AUTO_DNS, DEFAULT_KEEPALIVE, type ClientRoutes } from '../wg/client-options';
import { foreignLinkError } from '../wg/link-owner';
import { badField } from './field-error';
import { checkServerConflicts, defaultInterfaceName, endpointPort, nextFreeAddress } from './server-rules';
import { checkServer6, nextFreeAddress6 } from './server-rules6';
import { checkLanAccessNow } from './network-rules';
import type { NetworkReach } from '../store/peers';

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
  clientAllowedIPs?: ClientRoutes | null;
  /** lanAccess of new peers that do not say: "lan", prefixes of the router's networks, [] none. */
  lanAccess?: NetworkReach;
  persistentKeepalive?: number;
}

export function getServer(app: Pick<App, 'store'>, id: number): ServerRecord {
  const server = app.store.servers.get(id);
  if (!server) throw apiError('WGCP_SERVER_NOT_FOUND');
  return server;
}

/**
 * The server as the API shows it: with its peers, kernel state and webhooks (as the
 * caller's role sees them: resources/webhook.ts).
 * `withPeers: false` leaves the peers out (and does not read them): a page of servers at
 * 10,000 peers is then a few hundred bytes, not megabytes.
 */
export function showServer(app: App, s: ServerRecord, role: Role | null | undefined, opts: { withPeers?: boolean } = {}) {
  const shown = presentServer(s, opts.withPeers === false ? [] : app.store.peers.listByServer(s.id), app.store.webhooks.listByServer(s.id), app.kernel.serverState(s.id), role);
  if (opts.withPeers !== false) return shown;
  const { peers: _left, ...rest } = shown;
  return rest;
}

function need<T>(value: T | undefined, field: string): T {
  if (value === undefined) throw badField(field, 'is required');
  return value;
}

export function createServer(app: App, input: ServerInput, opts?: ChangeOptions): Promise<ServerRecord> {
  const { kernel } = app;
  const endpoint = need(input.endpoint, 'endpoint');
  const now = app.now().toISOString();
  return app.runner.run('server.create', (store) => {
    const address = input.address ?? nextFreeAddress(store);
    const keys = generateKeyPair();
    const id = store.servers.nextId();
    const draft = {
      name: need(input.name, 'name'),
      endpoint,
      mode: need(input.mode, 'mode'),
      interface: input.interface ?? defaultInterfaceName(store, id, (name) => kernel.isForeignLink(name)),
      address,
      address6: input.address6 === undefined ? nextFreeAddress6(store) : input.address6,
      listenPort: input.listenPort ?? endpointPort(endpoint)!,
      // `auto`: the router's resolver when one listens on the tunnel address, else no DNS line.
      dns: input.dns ?? AUTO_DNS,
      mtu: input.mtu ?? null,
      clientAllowedIPs: input.clientAllowedIPs ?? null,
      persistentKeepalive: input.persistentKeepalive ?? DEFAULT_KEEPALIVE,
      lanAccess: input.lanAccess ?? [],
      privateKey: keys.privateKey,
      publicKey: keys.publicKey,
      createdAt: now,
      updatedAt: now,
    };
    checkServerConflicts(store, draft);
    checkServer6(store, draft);
    if (input.lanAccess !== undefined) checkLanAccessNow(store, input.lanAccess);
    if (input.interface !== undefined && kernel.isForeignLink(draft.interface)) throw foreignLinkError(draft.interface);
    const server: ServerRecord = { ...draft, id };
    return {
      kernel: [{ server: { before: null, after: server, peers: [], forwards: [] } }],
      commit({ store, event }) {
        const rec = store.servers.insert(server);
        event('serverChanged', rec.id, serverEventData('created', rec, kernel.serverState(rec.id)));
        return rec;
      },
      audit: (rec) => ({ targetType: 'server', targetId: rec.id, summary: { ...input } }),
    };
  }, opts);
}

export function updateServer(app: App, id: number, input: ServerInput, opts?: ChangeOptions): Promise<ServerRecord> {
  const { kernel } = app;
  return app.runner.run('server.update', (store) => {
    const current = getServer({ store }, id);
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
      clientAllowedIPs: input.clientAllowedIPs === undefined ? current.clientAllowedIPs ?? null : input.clientAllowedIPs,
      persistentKeepalive: input.persistentKeepalive ?? current.persistentKeepalive ?? DEFAULT_KEEPALIVE,
      lanAccess: input.lanAccess ?? current.lanAccess ?? [],
      updatedAt: app.now().toISOString(),
    };
    if (input.lanAccess !== undefined && String(input.lanAccess) !== String(current.lanAccess ?? [])) checkLanAccessNow(store, input.lanAccess);
    checkServerConflicts(store, next);
    if (next.address6 !== current.address6) checkServer6(store, next);
    if (next.interface !== current.interface && kernel.isForeignLink(next.interface)) throw foreignLinkError(next.interface);
    // The plane keeps the peers it holds: reading them all again made every update O(peers).
    return {
      kernel: [{ server: { before: current, after: next, peers: [], forwards: store.forwards.kernelForwardsOfServer(next.id) } }],
      commit({ store, event }) {
        store.servers.update(next);
        event('serverChanged', next.id, serverEventData('updated', next, kernel.serverState(next.id)));
        return next;
      },
      audit: () => ({ targetType: 'server', targetId: id, summary: { ...input, was: Object.fromEntries(Object.keys(input).map((k) => [k, current[k as keyof ServerInput] ?? null])) } }),
    };
  }, opts);
}

/** Deletes a server with its peers and webhooks; each peer is announced like any other delete. */
export function deleteServer(app: App, id: number, opts?: ChangeOptions): Promise<void> {
  const { kernel } = app;
  return app.runner.run('server.delete', (store) => {
    const server = getServer({ store }, id);
    const peers = store.peers.listByServer(server.id);
    const state = kernel.serverState(server.id);
    // The peers and forwards ride along so that an undo can bring the server back whole.
    const forwards = store.forwards.kernelForwardsOfServer(server.id);
    return {
      kernel: [{ server: { before: server, after: null, peers, forwards } }],
      commit({ store, event, peerEvent }) {
        // The events are recorded first: the server's webhooks go with it, and those of its
        // own that hear its deletion are written before they do (then cascade away too).
        for (const p of peers) peerEvent('peerDeleted', server, p);
        event('serverChanged', server.id, serverEventData('deleted', server, state));
        store.servers.delete(server.id);
      },
      audit: () => ({ targetType: 'server', targetId: server.id, summary: { name: server.name, peers: peers.length } }),
    };
  }, opts);
}
