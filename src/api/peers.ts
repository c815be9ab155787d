// Peers of a server: list, create, read, update, delete. Each change is applied to the
// kernel for that one peer, inside the transaction that stores it.
import createError from 'http-errors';
import type { App } from '../app';
import type { Route } from '../http/router';
import { created, noContent, ok } from '../http/reply';
import type { PeerRecord } from '../store/peers';
import { generateKeyPair, generatePresharedKey } from '../wg/keys';
import { firstFreeHost, parseCidr } from '../wg/ipv4';
import { badField, parseId } from './fields';
import { presentPeer } from './present';
import { hasReason, withReason, withoutReason } from '../ops/disable-reasons';
import { findServer } from './servers';
import { forwardsOfPeerChange } from './forwards-follow';
import { GB, allocatePeerIp, checkAllowAccess, checkPeerIp, checkPeerKey, parsePeerInput, type PeerInput } from './peer-input';

export function findPeer(app: App, idText: string): PeerRecord {
  const peer = app.store.peers.get(parseId(idText, 'peer'));
  if (!peer) throw createError(404, 'peer not found');
  return peer;
}

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

/** Applies an update body to a peer: the admin's own disable, and lifting a data-limit restriction the new limit no longer holds. */
export function mergePeer(before: PeerRecord, input: PeerInput, now: string): PeerRecord {
  const next: PeerRecord = {
    ...before,
    name: input.name ?? before.name,
    email: input.email ?? before.email,
    ip: input.ip ?? before.ip,
    allowAccess: input.allowAccess ?? before.allowAccess,
    allowInternet: input.allowInternet ?? before.allowInternet,
    dataLimitGB: input.dataLimitGB ?? before.dataLimitGB,
    expiresAt: input.expiresAt === undefined ? before.expiresAt : input.expiresAt,
    updatedAt: now,
  };
  if (input.publicKey !== undefined && input.publicKey !== before.publicKey) {
    next.publicKey = input.publicKey;
    next.privateKey = null;
  }
  // `enabled` is the admin's own decision: it adds or lifts 'admin' and no other reason.
  let out = input.enabled === false ? withReason(next, 'admin') : input.enabled === true ? withoutReason(next, 'admin') : next;
  if (hasReason(out, 'data_limit') && (out.dataLimitGB === 0 || out.usageBytes < out.dataLimitGB * GB)) out = withoutReason(out, 'data_limit');
  return out;
}

export function peerRoutes(app: App): Route[] {
  const { store, kernel, events } = app;
  return [
    {
      method: 'GET', path: '/api/servers/:id/peers', auth: 'control',
      handler(ctx) {
        const server = findServer(app, ctx.params.id);
        return ok(store.peers.listByServer(server.id, readPage(ctx.query)).map(presentPeer));
      },
    },
    {
      method: 'POST', path: '/api/servers/:id/peers', auth: 'control',
      async handler(ctx) {
        const serverId = findServer(app, ctx.params.id).id;
        const input = parsePeerInput(await ctx.body());
        const now = app.now().toISOString();
        const { server, peer } = store.tx(() => {
          // Read again here: the server may have changed (a new subnet) while the body arrived.
          const server = store.servers.get(serverId);
          if (!server) throw createError(404, 'server not found');
          const ip = input.ip ?? allocatePeerIp(store, server, (used) => firstFreeHost(parseCidr(server.address)!, used));
          checkPeerIp(store, server, ip, null);
          const keys = input.publicKey !== undefined ? { privateKey: null, publicKey: input.publicKey } : generateKeyPair();
          checkPeerKey(store, server, keys.publicKey, null);
          const allowAccess = input.allowAccess ?? [];
          checkAllowAccess(store, server, allowAccess, null);
          const enabled = input.enabled ?? true;
          const rec = store.peers.insert({
            serverId: server.id, name: input.name ?? '', email: input.email ?? '', ip,
            publicKey: keys.publicKey, privateKey: keys.privateKey, presharedKey: generatePresharedKey(),
            allowAccess, allowInternet: input.allowInternet ?? false, enabled, disabledReasons: enabled ? [] : ['admin'],
            dataLimitGB: input.dataLimitGB ?? 0, usageBytes: 0, expiresAt: input.expiresAt ?? null,
            createdAt: now, updatedAt: now,
          });
          kernel.applyPeer({ server, before: null, after: rec });
          return { server, peer: rec };
        });
        const shown = presentPeer(peer);
        events.publish('peerCreated', server.id, { mode: server.mode, peer: shown });
        return created(shown);
      },
    },
    {
      method: 'GET', path: '/api/peers/:id', auth: 'control',
      handler: (ctx) => ok(presentPeer(findPeer(app, ctx.params.id))),
    },
    {
      method: 'PUT', path: '/api/peers/:id', auth: 'control',
      async handler(ctx) {
        const found = findPeer(app, ctx.params.id);
        const input = parsePeerInput(await ctx.body());
        const { server, after } = store.tx(() => {
          const before = store.peers.get(found.id);
          if (!before) throw createError(404, 'peer not found');
          const server = store.servers.get(before.serverId)!;
          const next = mergePeer(before, input, app.now().toISOString());
          if (next.ip !== before.ip) checkPeerIp(store, server, next.ip, before.id);
          if (next.publicKey !== before.publicKey) {
            // A device's keys are the daemon's to make: it could never learn a key set here.
            const device = store.devices.byPeer(before.id);
            if (device) throw badField('publicKey', `belongs to device ${device.deviceId}; use POST /api/devices/${device.deviceId}/rotate`);
            checkPeerKey(store, server, next.publicKey, before.id);
          }
          if (input.allowAccess !== undefined) checkAllowAccess(store, server, next.allowAccess, before.id);
          const forwards = forwardsOfPeerChange(store, before, next);
          store.peers.update(next);
          kernel.applyPeer({ server, before, after: next, forwards });
          return { server, after: next };
        });
        const shown = presentPeer(after);
        events.publish('peerUpdated', server.id, { mode: server.mode, peer: shown });
        return ok(shown);
      },
    },
    {
      method: 'DELETE', path: '/api/peers/:id', auth: 'control',
      handler(ctx) {
        deletePeer(app, findPeer(app, ctx.params.id));
        return noContent();
      },
    },
  ];
}

/** A delete as every caller does it (API, expiry, device removal): rows, kernel, then the event. */
export function deletePeer(app: App, peer: PeerRecord): void {
  const { store } = app;
  const { server, before } = store.tx(() => {
    const before = store.peers.get(peer.id);
    if (!before) throw createError(404, 'peer not found');
    const server = store.servers.get(before.serverId)!;
    const forwards = forwardsOfPeerChange(store, before, null);
    store.peers.delete(before.id);
    app.kernel.applyPeer({ server, before, after: null, forwards });
    return { server, before };
  });
  app.events.publish('peerDeleted', server.id, { mode: server.mode, peer: presentPeer(before) });
}
