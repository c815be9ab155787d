// Peer operations, shared by the API, the jobs and the CLI: each one reads what it changes
// inside its transaction, checks the rules, stores, applies the kernel change for that one
// peer (and the forwards that move with it), commits, then publishes its event.
import createError from 'http-errors';
import type { App } from '../app';
import type { PeerRecord } from '../store/peers';
import type { ServerRecord } from '../store/servers';
import { presentPeer } from '../views/present';
import { generateKeyPair, generatePresharedKey } from '../wg/keys';
import { hasReason, withReason, withoutReason } from './disable-reasons';
import { badField } from './field-error';
import { forwardsOfPeerChange } from './forwards-follow';
import { GB, allocatePeerIp, allocatePeerIp6, checkAllowAccess, checkPeerIp, checkPeerIp6, checkPeerKey } from './peer-rules';

/** A peer's fields as an operation takes them; left out means "as it is" (or the default on create). */
export interface PeerInput {
  name?: string;
  email?: string;
  ip?: string;
  ip6?: string;
  publicKey?: string;
  allowAccess?: number[];
  allowInternet?: boolean;
  enabled?: boolean;
  dataLimitGB?: number;
  expiresAt?: string | null;
}

export function getPeer(app: App, id: number): PeerRecord {
  const peer = app.store.peers.get(id);
  if (!peer) throw createError(404, 'peer not found');
  return peer;
}

/** Applies an update to a peer: the admin's own disable, and lifting a data-limit restriction the new limit no longer holds. */
export function mergePeer(before: PeerRecord, input: PeerInput, now: string): PeerRecord {
  const next: PeerRecord = {
    ...before,
    name: input.name ?? before.name,
    email: input.email ?? before.email,
    ip: input.ip ?? before.ip,
    ip6: input.ip6 ?? before.ip6,
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

export function createPeer(app: App, serverId: number, input: PeerInput): PeerRecord {
  const { store, kernel } = app;
  const now = app.now().toISOString();
  const { server, peer } = store.tx(() => {
    const server = store.servers.get(serverId);
    if (!server) throw createError(404, 'server not found');
    const ip = input.ip ?? allocatePeerIp(store, server);
    checkPeerIp(store, server, ip, null);
    const ip6 = input.ip6 ?? allocatePeerIp6(store, server, ip);
    if (ip6 !== null) checkPeerIp6(store, server, ip6, null);
    const keys = input.publicKey !== undefined ? { privateKey: null, publicKey: input.publicKey } : generateKeyPair();
    checkPeerKey(store, server, keys.publicKey, null);
    const allowAccess = input.allowAccess ?? [];
    checkAllowAccess(store, server, allowAccess, null);
    const enabled = input.enabled ?? true;
    const rec = store.peers.insert({
      serverId: server.id, name: input.name ?? '', email: input.email ?? '', ip, ip6,
      publicKey: keys.publicKey, privateKey: keys.privateKey, presharedKey: generatePresharedKey(),
      allowAccess, allowInternet: input.allowInternet ?? false, enabled, disabledReasons: enabled ? [] : ['admin'],
      dataLimitGB: input.dataLimitGB ?? 0, usageBytes: 0, expiresAt: input.expiresAt ?? null,
      createdAt: now, updatedAt: now,
    });
    kernel.applyPeer({ server, before: null, after: rec });
    return { server, peer: rec };
  });
  app.events.publish('peerCreated', server.id, { mode: server.mode, peer: presentPeer(peer) });
  return peer;
}

export function updatePeer(app: App, id: number, input: PeerInput): PeerRecord {
  const { store, kernel } = app;
  const { server, after } = store.tx(() => {
    const before = getPeer(app, id);
    const server = store.servers.get(before.serverId)!;
    const next = mergePeer(before, input, app.now().toISOString());
    if (next.ip !== before.ip) checkPeerIp(store, server, next.ip, before.id);
    if (next.ip6 !== before.ip6 && next.ip6 !== null) checkPeerIp6(store, server, next.ip6, before.id);
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
  app.events.publish('peerUpdated', server.id, { mode: server.mode, peer: presentPeer(after) });
  return after;
}

/** A delete as every caller does it (API, expiry, device removal): rows, kernel, then the event. */
export function deletePeer(app: App, id: number): { server: ServerRecord; peer: PeerRecord } {
  const { store } = app;
  const { server, before } = store.tx(() => {
    const before = getPeer(app, id);
    const server = store.servers.get(before.serverId)!;
    const forwards = forwardsOfPeerChange(store, before, null);
    store.peers.delete(before.id);
    app.kernel.applyPeer({ server, before, after: null, forwards });
    return { server, before };
  });
  app.events.publish('peerDeleted', server.id, { mode: server.mode, peer: presentPeer(before) });
  return { server, peer: before };
}

/**
 * A change decided on the peer as it stands inside the transaction (null: none): store,
 * kernel, commit. The caller announces it (a restriction is not an admin's update).
 */
export function changePeer(app: App, id: number, decide: (p: PeerRecord) => PeerRecord | null): { before: PeerRecord; after: PeerRecord } | null {
  const { store, kernel } = app;
  return store.tx(() => {
    const before = store.peers.get(id);
    if (!before) return null;
    const after = decide(before);
    if (!after) return null;
    store.peers.update(after);
    // Off the interface its counters are gone; when it returns they start from zero.
    if (!after.enabled) store.usage.forgetBaseline(id);
    kernel.applyPeer({ server: store.servers.get(before.serverId)!, before, after });
    return { before, after };
  });
}
