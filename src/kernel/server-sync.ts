// The rows side of a server's sync, pure: which peers and forwards differ between what the
// kernel holds (the model) and what the store says, as the changes that take one to the
// other. The sync (KernelLive.syncServer) applies them as one partial sync, and for a full
// sync then reads the kernel itself (src/kernel/reconcile-comparers.ts: links, peers, IPv6
// forwarding, the table, bandwidth limits) and puts right whatever differs from the model.
import type { PortForward } from '../store/forwards';
import type { KernelPeer } from '../store/peers';
import type { ServerRecord } from '../store/servers';
import type { ServerModel } from './model';
import type { ForwardChange, PeerChange, ServerState } from './plane';
import type { DriftKind, Finding } from './reconcile-target';

/** The server id of the router's own side of a sync: the `inet wgcp` table, which every server shares (a kernelDrift event names it 0 too). */
export const ROUTER_SYNC = 0;

/**
 * Which peers to sync: those named (a change, a replicated row: constant time a peer), or
 * all (start-up, restore, repair, retry). A full sync then reads the kernel back: `kinds`
 * names what it reads (absent: everything), `skip` leaves out findings whose repair waits
 * its back-off (the reconciler's).
 */
export interface SyncOptions {
  peers: number[] | 'all';
  kinds?: readonly DriftKind[];
  skip?(f: Finding): boolean;
  /** The server's device was made again empty (wireguard-go restarted): brought up from the rows on it, as at start-up. */
  remade?: boolean;
}

/** What a full sync's read-back found and put right, and what it could not (left for the reconciler's next pass). */
export interface SyncRepairs { repaired: Finding[]; failed: { finding: Finding; error: string }[] }

/** The rows the kernel held before a sync, of what it changed: its undo is the sync back to them. */
export interface SyncUndo {
  /** null: the sync made the server (its undo removes it). */
  server: ServerRecord | null;
  /** The peers held before among `ids`; an id without one was not held (its undo removes it). */
  peers: KernelPeer[];
  forwards: PortForward[];
  ids: number[];
  /** A full sync's read-back: what drifted and was put right (absent for a partial sync). */
  repairs?: SyncRepairs;
}

/** The fields of a server that reach the kernel (its interface, addresses, port, MTU, key, the filter's mode); its name, DNS and dates do not. */
const SERVER_KERNEL_FIELDS = ['interface', 'mode', 'address', 'address6', 'listenPort', 'mtu', 'privateKey'] as const satisfies readonly (keyof ServerRecord)[];

/** True when two rows of a server put something different in the kernel. */
export function serverDiffers(a: ServerRecord, b: ServerRecord): boolean {
  return SERVER_KERNEL_FIELDS.some((f) => a[f] !== b[f]);
}

const sameList = (a: readonly unknown[] | undefined, b: readonly unknown[] | undefined): boolean => {
  const x = a ?? [];
  const y = b ?? [];
  return x.length === y.length && x.every((v, i) => v === y[i]);
};
const sameReach = (a: KernelPeer['lanAccess'], b: KernelPeer['lanAccess']): boolean =>
  a === 'lan' || b === 'lan' ? a === b : sameList(a, b);

/**
 * True when two rows of a peer put something different in the kernel, field by field: the
 * fields of a KernelPeer (src/store/peers.ts), the only ones the kernel reads. A field the
 * kernel gains is added to KernelPeer and here.
 */
export function peerDiffers(a: KernelPeer | null, b: KernelPeer | null): boolean {
  if (a === null || b === null) return a !== b;
  return a.id !== b.id || a.ip !== b.ip || a.ip6 !== b.ip6 || a.publicKey !== b.publicKey || a.presharedKey !== b.presharedKey
    || a.allowInternet !== b.allowInternet || a.enabled !== b.enabled
    || (a.downloadLimitMbps ?? null) !== (b.downloadLimitMbps ?? null) || (a.uploadLimitMbps ?? null) !== (b.uploadLimitMbps ?? null)
    || !sameList(a.allowAccess, b.allowAccess) || !sameList(a.networks, b.networks)
    || !sameReach(a.lanAccess, b.lanAccess) || !sameReach(a.reachableFrom, b.reachableFrom);
}

/** The peer changes that take the model's peers among `ids` (or all of both sides) to `desired`. */
export function peerChangesToward(model: ServerModel, desired: ServerState, ids: number[] | 'all'): PeerChange<KernelPeer>[] {
  const wanted = new Map(desired.peers.map((p) => [p.id, p]));
  const named = ids === 'all' ? new Set([...model.peers.keys(), ...wanted.keys()]) : new Set(ids);
  const out: PeerChange<KernelPeer>[] = [];
  for (const id of named) {
    const before = model.peers.get(id) ?? null;
    const after = wanted.get(id) ?? null;
    if (peerDiffers(before, after)) out.push({ server: desired.server, before, after });
  }
  return out;
}

const sameForward = (a: PortForward, b: PortForward): boolean =>
  a.protocol === b.protocol && a.listenPort === b.listenPort && a.targetIp === b.targetIp && a.targetIp6 === b.targetIp6 && a.targetPort === b.targetPort;

/** The forward changes that take the model's forwards to `desired` (a server's forwards are few: all compared). */
export function forwardChangesToward(model: ServerModel, desired: ServerState): ForwardChange[] {
  const wanted = new Map(desired.forwards.map((f) => [f.id, f]));
  const out: ForwardChange[] = [];
  for (const [id, held] of model.forwards) {
    const w = wanted.get(id);
    if (!w) out.push({ server: desired.server, before: held, after: null });
    else if (!sameForward(held, w)) out.push({ server: desired.server, before: held, after: w });
  }
  for (const [id, w] of wanted) if (!model.forwards.has(id)) out.push({ server: desired.server, before: null, after: w });
  return out;
}

/** The rows held before, of the peers the changes name. */
export function heldRows(model: ServerModel, changes: PeerChange<KernelPeer>[]): Pick<SyncUndo, 'peers' | 'ids'> {
  const ids = changes.map((c) => (c.after ?? c.before)!.id);
  return { ids, peers: ids.flatMap((id) => { const p = model.peers.get(id); return p ? [p] : []; }) };
}
