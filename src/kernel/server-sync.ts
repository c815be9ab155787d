// The rows side of a server's sync, pure: which peers and forwards differ between what the
// kernel holds (the model) and what the store says, as the changes that take one to the
// other. The sync (KernelLive.syncServer) applies them as one partial sync, and for a full
// sync then reads the kernel itself (src/kernel/reconcile-comparers.ts: links, peers, IPv6
// forwarding, the table, bandwidth limits) and puts right whatever differs from the model.
import type { PortForward } from '../store/forwards';
import type { KernelPeer } from '../store/peers';
import type { ServerRecord } from '../store/servers';
import { kernelPeer, type ServerModel } from './model';
import type { ForwardChange, PeerChange, ServerState } from './plane';

/** Which peers to sync: those named (a change, a replicated row: constant time a peer), or all (start-up, restore, repair, retry). */
export interface SyncOptions { peers: number[] | 'all' }

/** The rows the kernel held before a sync, of what it changed: its undo is the sync back to them. */
export interface SyncUndo {
  /** null: the sync made the server (its undo removes it). */
  server: ServerRecord | null;
  /** The peers held before among `ids`; an id without one was not held (its undo removes it). */
  peers: KernelPeer[];
  forwards: PortForward[];
  ids: number[];
}

/**
 * True when two rows of a peer put something different in the kernel: their kernel copies
 * (model.ts, one literal of every field the kernel reads, in one order) compared whole, so
 * a field the kernel gains later is compared without a change here.
 */
export function peerDiffers(a: KernelPeer | null, b: KernelPeer | null): boolean {
  if (a === null || b === null) return a !== b;
  return JSON.stringify(kernelPeer(a)) !== JSON.stringify(kernelPeer(b));
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
