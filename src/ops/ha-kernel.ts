// A standby keeps its own kernel in the desired state of the rows it follows: after a batch
// of the primary's changes is stored, the servers it touched go from what the kernel was
// given before (their records, peers and forwards then) to what the store holds now, with
// the same incremental steps a change uses (a server made, updated or taken down; a peer
// added, changed or removed; a forward). One change of the runner, so it takes its turn.
//
// syncServersToKernel is the one call the follower makes: when the desired-state kernel
// sync of issue 35 lands, its body becomes that sync of `ids`.
import type { App } from '../app';
import type { PortForward } from '../kernel/plane';
import type { PeerRecord } from '../store/peers';
import type { ServerRecord } from '../store/servers';
import type { Store } from '../store/store';
import type { KernelChange } from './runner';

export interface ServerView { server: ServerRecord; peers: PeerRecord[]; forwards: PortForward[] }

/** What the kernel was given for each of `ids` (absent: no such server), read from `store`. */
export function serverViews(store: Store, ids: Iterable<number>): Map<number, ServerView> {
  const views = new Map<number, ServerView>();
  for (const id of ids) {
    const server = store.servers.get(id);
    if (server) views.set(id, { server, peers: store.peers.listByServer(id), forwards: store.forwards.kernelForwardsOfServer(id) });
  }
  return views;
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/**
 * What of a peer the kernel is given (its keys, addresses, access, internet, networks, state,
 * bandwidth limits): a peer whose usage total or name moved (every usage cycle) is no kernel step.
 */
const kernelSide = (p: PeerRecord) => [p.ip, p.ip6, p.publicKey, p.presharedKey, p.allowAccess, p.allowInternet, p.networks ?? null, p.enabled, p.downloadLimitMbps, p.uploadLimitMbps];

function byId<T extends { id: number }>(list: T[]): Map<number, T> { return new Map(list.map((x) => [x.id, x])); }

/** The kernel's way from `before` to `after`, server by server. Pure. */
export function kernelSteps(ids: Iterable<number>, before: Map<number, ServerView>, after: Map<number, ServerView>): KernelChange[] {
  const steps: KernelChange[] = [];
  for (const id of ids) {
    const b = before.get(id);
    const a = after.get(id);
    if (!a && !b) continue;
    if (!a) { steps.push({ server: { before: b!.server, after: null, peers: b!.peers, forwards: b!.forwards } }); continue; }
    if (!b) { steps.push({ server: { before: null, after: a.server, peers: a.peers, forwards: a.forwards } }); continue; }
    if (!same(a.server, b.server)) steps.push({ server: { before: b.server, after: a.server, peers: [], forwards: a.forwards } });
    const peersBefore = byId(b.peers);
    const peersAfter = byId(a.peers);
    for (const [pid, p] of peersBefore) if (!peersAfter.has(pid)) steps.push({ peer: { server: a.server, before: p, after: null } });
    for (const [pid, p] of peersAfter) {
      const was = peersBefore.get(pid) ?? null;
      if (!was || !same(kernelSide(was), kernelSide(p))) steps.push({ peer: { server: a.server, before: was, after: p } });
    }
    const fwdBefore = byId(b.forwards);
    const fwdAfter = byId(a.forwards);
    for (const [fid, f] of fwdBefore) if (!fwdAfter.has(fid)) steps.push({ forward: { server: a.server, before: f, after: null } });
    for (const [fid, f] of fwdAfter) {
      const was = fwdBefore.get(fid) ?? null;
      if (!was || !same(was, f)) steps.push({ forward: { server: a.server, before: was, after: f } });
    }
  }
  return steps;
}

/** Brings the kernel of servers `ids` from `before` to what the store holds now, in the runner's turn. */
export function syncServersToKernel(app: App, ids: ReadonlySet<number>, before: Map<number, ServerView>): Promise<number> {
  return app.runner.run('ha.kernel', (store) => {
    const steps = kernelSteps(ids, before, serverViews(store, ids));
    return { kernel: steps, commit: () => steps.length, audit: false };
  }, { replicated: true });
}
