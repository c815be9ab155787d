// Peer operations, shared by the API, the jobs and the CLI: each is a plan for the change
// runner that reads what it changes, checks the rules and decides the peer, the kernel
// change for that one peer (and the forwards that move with it) and its event.
import { apiError } from '../error-registry';
import type { App } from '../app';
import type { Store } from '../store/store';
import type { ChangeOptions, Commit } from './runner';
import type { NetworkReach, PeerRecord } from '../store/peers';
import { mergeInput, withInitials } from '../resources/describe';
import { PEER } from '../resources/peer';
import type { ServerRecord } from '../store/servers';
import { deviceNumber } from '../views/devices-present';
import { generateKeyPair, generatePresharedKey } from '../wg/keys';
import { hasReason, isOverLimit, leavesInterface, wholeGB, withReason, withoutReason } from '../peer-state';
import { badField } from './field-error';
import { bringsDeletionNearer, requirePeerDeleteRight } from './deletion-rights';
import { forwardsOfPeerChange } from './forwards-follow';
import { withScheduleState } from './schedule-state';
import { checkLanAccessNow, checkPeerNetworks, checkReachableFrom } from './network-rules';
import { routerRoutes } from '../net/router-routes';
import { allocatePeerIp, allocatePeerIp6, checkAllowAccess, checkPeerIp, checkPeerIp6, checkPeerKey } from './peer-rules';

/** A peer's fields as an operation takes them (those with an input rule in resources/peer.ts); left out means "as it is" (or the initial value on create). */
export type PeerInput = Partial<Omit<PeerRecord, 'id' | 'serverId' | 'privateKey' | 'presharedKey' | 'disabledReasons' | 'usageBytes' | 'createdAt' | 'updatedAt' | 'ip6'>> & { ip6?: string };

/** The networks' rules (ops/network-rules.ts) against the router's routes as they stand now. */
export function checkNetworks(store: Store, networks: string[], selfId: number | null): void {
  const tunnels = new Set(store.servers.list().map((s) => s.interface));
  checkPeerNetworks(store, networks, selfId, routerRoutes(tunnels));
}

/** lanAccess and reachableFrom against the router's networks as they stand now. */
function checkReach(store: Store, input: Pick<PeerInput, 'lanAccess' | 'reachableFrom'>): void {
  if (input.lanAccess !== undefined) checkLanAccessNow(store, input.lanAccess);
  if (input.reachableFrom !== undefined) checkReachableFrom(input.reachableFrom);
}

export function getPeer(app: Pick<App, 'store'>, id: number): PeerRecord {
  const peer = app.store.peers.get(id);
  if (!peer) throw apiError('WGCP_PEER_NOT_FOUND');
  return peer;
}

/** The limit a body names, exact: dataLimitGiB (tenths) or the contract's whole dataLimitGB; both must agree. */
function givenLimit(input: PeerInput): number | undefined {
  const { dataLimitGB: whole, dataLimitTenths: exact } = input;
  if (exact === undefined) return whole;
  if (whole !== undefined && whole !== wholeGB(exact)) {
    throw badField('dataLimitGiB', `must name the limit dataLimitGB names (${exact} GiB reads ${wholeGB(exact)} there): give one of them`);
  }
  return exact;
}

/**
 * The limit after an update. A client of the contract reads a limit of 1.5 as dataLimitGB 2;
 * sending that 2 back (a whole object echoed with one field changed) keeps the 1.5.
 */
function mergedLimit(before: number, input: PeerInput): number {
  const given = givenLimit(input);
  if (given === undefined) return before;
  return input.dataLimitTenths === undefined && given === wholeGB(before) ? before : given;
}

/** The fields a body named, as the audit log keeps them: a limit in tenths under its API name. */
function named({ dataLimitTenths, ...fields }: PeerInput): Record<string, unknown> {
  return dataLimitTenths === undefined ? fields : { ...fields, dataLimitGiB: dataLimitTenths };
}

/** Applies an update to a peer: the admin's own disable, and lifting a data-limit restriction the new limit no longer holds. */
export function mergePeer(before: PeerRecord, input: PeerInput, now: string): PeerRecord {
  // Each plain field given replaces its value (resources/peer.ts); publicKey and enabled are merged here.
  const next: PeerRecord = { ...mergeInput(PEER, before, input), dataLimitGB: mergedLimit(before.dataLimitGB, input), updatedAt: now };
  if (input.publicKey !== undefined && input.publicKey !== before.publicKey) {
    next.publicKey = input.publicKey;
    next.privateKey = null;
  }
  // `enabled` is the admin's own decision: it adds or lifts 'admin' and no other reason.
  let out = input.enabled === false ? withReason(next, 'admin') : input.enabled === true ? withoutReason(next, 'admin') : next;
  if (hasReason(out, 'data_limit') && !isOverLimit(out.usageBytes, out.dataLimitGB)) out = withoutReason(out, 'data_limit');
  // A schedule set, changed or cleared decides its reason at once, in this same change.
  return withScheduleState(out, Date.parse(now));
}

export function createPeer(app: App, serverId: number, input: PeerInput, opts?: ChangeOptions): Promise<PeerRecord> {
  const now = app.now().toISOString();
  return app.runner.run('peer.create', (store) => {
    const server = store.servers.get(serverId);
    if (!server) throw apiError('WGCP_SERVER_NOT_FOUND');
    const ip = input.ip ?? allocatePeerIp(store, server);
    checkPeerIp(store, server, ip, null);
    const ip6 = input.ip6 ?? allocatePeerIp6(store, server, ip);
    if (ip6 !== null) checkPeerIp6(store, server, ip6, null);
    const keys = input.publicKey !== undefined ? { privateKey: null, publicKey: input.publicKey } : generateKeyPair();
    checkPeerKey(store, server, keys.publicKey, null);
    const allowAccess = input.allowAccess ?? [];
    checkAllowAccess(store, server, allowAccess, null);
    if (input.networks?.length) checkNetworks(store, input.networks, null);
    checkReach(store, input);
    const enabled = input.enabled ?? true;
    // The id is decided here so that the kernel holds the peer the commit writes.
    const peer: PeerRecord = withScheduleState(withInitials(PEER, {
      ...input, dataLimitTenths: undefined, dataLimitGB: givenLimit(input) ?? 0, id: store.peers.nextId(), serverId: server.id, ip, ip6,
      publicKey: keys.publicKey, privateKey: keys.privateKey, presharedKey: generatePresharedKey(),
      allowAccess, enabled, disabledReasons: enabled ? [] : ['admin'], usageBytes: 0, createdAt: now, updatedAt: now,
      // A new peer that does not say takes its server's lanAccess (none unless the server says).
      lanAccess: input.lanAccess ?? server.lanAccess ?? [],
    }), Date.parse(now));
    return {
      kernel: [{ peer: { server, before: null, after: peer } }],
      commit({ store, peerEvent }) {
        const rec = store.peers.insert(peer);
        peerEvent('peerCreated', server, rec);
        return rec;
      },
      audit: (rec) => ({ targetType: 'peer', targetId: rec.id, summary: { serverID: server.id, ...named(input) } }),
    };
  }, opts);
}

export function updatePeer(app: App, id: number, input: PeerInput, opts?: ChangeOptions): Promise<PeerRecord> {
  return app.runner.run('peer.update', (store) => {
    const before = getPeer({ store }, id);
    const server = store.servers.get(before.serverId)!;
    const next = mergePeer(before, input, app.now().toISOString());
    if (bringsDeletionNearer(before.expiresAt, next.expiresAt)) requirePeerDeleteRight(opts?.actor, 'expiresAt', 'an expiry deletes the peer');
    if (next.ip !== before.ip) checkPeerIp(store, server, next.ip, before.id);
    if (next.ip6 !== before.ip6 && next.ip6 !== null) checkPeerIp6(store, server, next.ip6, before.id);
    if (next.publicKey !== before.publicKey) {
      // A device's keys are the daemon's to make: it could never learn a key set here.
      const device = store.devices.byPeer(before.id);
      if (device) throw badField('publicKey', `belongs to device ${deviceNumber(device)}; use POST /api/devices/${deviceNumber(device)}/rotate`);
      checkPeerKey(store, server, next.publicKey, before.id);
    }
    if (input.allowAccess !== undefined) checkAllowAccess(store, server, next.allowAccess, before.id);
    if (input.networks !== undefined && input.networks.join() !== (before.networks ?? []).join()) checkNetworks(store, next.networks!, before.id);
    // Judged when changed only: a form that sends them back as they were still saves after a LAN went away.
    const changed = (a: NetworkReach | undefined, b: NetworkReach | undefined) => a !== undefined && String(a) !== String(b ?? []);
    checkReach(store, { lanAccess: changed(input.lanAccess, before.lanAccess) ? input.lanAccess : undefined, reachableFrom: changed(input.reachableFrom, before.reachableFrom) ? input.reachableFrom : undefined });
    const forwards = forwardsOfPeerChange(store, before, next);
    return {
      kernel: [{ peer: { server, before, after: next, forwards } }],
      commit({ store, peerEvent }) {
        store.peers.update(next);
        if (leavesInterface(before, next)) store.usage.forgetBaseline(id);
        peerEvent('peerUpdated', server, next);
        return next;
      },
      // `was`: each changed field's value before, so the log can say "5 GiB -> 10 GiB".
      audit: () => ({ targetType: 'peer', targetId: id, summary: { ...named(input), was: valuesBefore(before, input) } }),
    };
  }, opts);
}

/** The fields an update names, as they were (enabled: the admin's own switch). */
function valuesBefore(before: PeerRecord, input: PeerInput): Record<string, unknown> {
  const was: Record<string, unknown> = {};
  for (const k of Object.keys(input) as (keyof PeerInput)[]) {
    if (k === 'dataLimitTenths') was.dataLimitGiB = before.dataLimitGB;
    else was[k] = k === 'enabled' ? !hasReason(before, 'admin') : before[k] ?? null;
  }
  return was;
}

/** The plan of a delete as every caller makes it (API, expiry, device removal): rows, kernel and peerDeleted. */
export function planPeerDelete(store: Store, before: PeerRecord, alsoExpired = false) {
  const server = store.servers.get(before.serverId)!;
  const forwards = forwardsOfPeerChange(store, before, null);
  return {
    kernel: [{ peer: { server, before, after: null, forwards } }],
    commit({ store, peerEvent }: Pick<Commit, 'store' | 'peerEvent'>) {
      store.peers.delete(before.id);
      peerEvent('peerDeleted', server, before);
      if (alsoExpired) peerEvent('peerExpired', server, before);
      return { server, peer: before };
    },
    audit: () => ({ targetType: 'peer', targetId: before.id, summary: { name: before.name, ip: before.ip, serverID: server.id } }),
  };
}

export function deletePeer(app: App, id: number, opts?: ChangeOptions): Promise<{ server: ServerRecord; peer: PeerRecord }> {
  return app.runner.run('peer.delete', (store) => planPeerDelete(store, getPeer({ store }, id)), opts);
}

/**
 * A change decided on the peer as it stands when planned (null: none), announced with the
 * event `announce` names (a restriction is not an admin's update).
 */
export function changePeer(app: App, action: string, id: number, decide: (p: PeerRecord) => PeerRecord | null,
  announce: { name: 'peerUpdated' | 'peerRestricted'; change?: string }, opts?: ChangeOptions,
): Promise<{ before: PeerRecord; after: PeerRecord } | null> {
  return app.runner.run(action, (store) => {
    const before = store.peers.get(id);
    const after = before ? decide(before) : null;
    if (!before || !after) return { commit: () => null };
    const server = store.servers.get(before.serverId)!;
    return {
      kernel: [{ peer: { server, before, after } }],
      commit({ store, peerEvent }) {
        store.peers.update(after);
        if (leavesInterface(before, after)) store.usage.forgetBaseline(id);
        peerEvent(announce.name, server, after, announce.change === undefined ? {} : { change: announce.change });
        return { before, after };
      },
      audit: () => ({ targetType: 'peer', targetId: id, summary: { enabled: after.enabled, disabledReasons: after.disabledReasons } }),
    };
  }, opts);
}

/** Deletes a peer whose expiry has passed at `now` (a delete that also records peerExpired); null when it no longer has. */
export function expirePeer(app: App, id: number, now: string, opts?: ChangeOptions): Promise<{ server: ServerRecord; peer: PeerRecord } | null> {
  return app.runner.run('peer.expire', (store) => {
    const peer = store.peers.get(id);
    // Deleted, or given a later expiry, since the list was read: nothing to do.
    if (!peer || peer.expiresAt === null || peer.expiresAt === '' || peer.expiresAt > now) return { commit: () => null };
    return planPeerDelete(store, peer, true);
  }, opts);
}
