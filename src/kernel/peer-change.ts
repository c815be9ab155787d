// One peer's change in the kernel: its elements (with the forwards that move with it) in
// one nft batch, its `wg set` calls and its bandwidth limits, as steps undone in reverse if
// a later one fails. A `wg` killed past its bound may still be applied after its undo, so
// the peer is then read back later (src/kernel/peer-read-back.ts).
import type { Logger } from '../log';
import { diff } from '../nft/diff';
import { mergeAll, mergeInto } from '../nft/elements';
import { forwardSlice, peerSlice } from '../nft/policy';
import type { Shaper } from '../shaping/shaper';
import { networksOf, peerOps, type PeerOp } from '../wg/uapi-conf';
import { addRoutes, removeRoutes } from '../wg/peer-routes';
import { CommandError, run } from '../exec/command';
import type { ServerModel } from './model';
import type { PeerChange } from './plane';
import { batchSteps, runSteps, runTogether, type Step } from './steps';

export interface PeerChangeParts {
  nft(batch: string): Promise<void>;
  shaper: Shaper;
  log: Logger;
  /** Reads a peer back from the server's interface later and puts it right from the model. */
  readBackLater(serverId: number, key: string): void;
}

export async function runPeerOps(ops: PeerOp[]): Promise<void> {
  for (const op of ops) await run('wg', op.args, { secret: op.secret });
}

/** The peer's `wg set` calls; if a later one fails after an earlier one worked (a new key), the peer is put back first. */
async function runPeerOpsOrRestore(ops: PeerOp[], restore: PeerOp[]): Promise<void> {
  try {
    for (const op of ops) await run('wg', op.args, { secret: op.secret });
  } catch (err) {
    // Restored even when the failed call was the first: a `wg` killed past its bound may
    // still have reached wireguard-go, which then applies it when it wakes up.
    try { await runPeerOps(restore); } catch { /* the server is marked for a full resync below */ }
    throw err;
  }
}

/** Takes the kernel from the model's peer to the change's `after`; the model itself is the caller's to follow. */
export async function applyPeerChange(change: PeerChange, model: ServerModel, parts: PeerChangeParts): Promise<void> {
  const { server, before, after } = change;
  const id = (after ?? before)!.id;
  const held = model.peers.get(id) ?? null;
  const lookupBefore = (x: number) => model.peers.get(x);
  const lookupAfter = (x: number) => (x === id ? after ?? undefined : model.peers.get(x));
  const sliceBefore = peerSlice(model.server, held, lookupBefore, model.referrersOf(id));
  const sliceAfter = peerSlice(model.server, after, lookupAfter, model.referrersOf(id));
  const ifname = model.server.interface;
  // The peer's forwards that move with it go in the same nft batch: one change, one undo.
  const fwBefore = mergeAll((change.forwards?.before ?? []).map((f) => forwardSlice(model.server, f)));
  const fwAfter = mergeAll((change.forwards?.after ?? []).map((f) => forwardSlice(model.server, f)));
  const was = mergeInto(sliceBefore, fwBefore);
  const will = mergeInto(sliceAfter, fwAfter);
  const steps: Step[] = batchSteps(parts.nft, diff(was, will), diff(will, was), `peer ${id} filter`);
  const ops = peerOps(ifname, held, after);
  const restore = peerOps(ifname, after, held);
  let wgKilled = false;
  const wgStep = async () => {
    try {
      await runPeerOpsOrRestore(ops, restore);
    } catch (err) {
      wgKilled = err instanceof CommandError && err.tool === 'wg' && err.status === null && /did not answer/.test(err.message);
      throw err;
    }
  };
  if (ops.length) steps.push({ what: `peer ${id} on ${ifname}`, run: wgStep, undo: () => runPeerOps(restore) });
  // Only this peer's networks that changed: one `ip route` each, whatever the number of peers.
  const gone = networksOf(held).filter((n) => !networksOf(after).includes(n));
  const added = networksOf(after).filter((n) => !networksOf(held).includes(n));
  if (gone.length || added.length) {
    steps.push({
      what: `peer ${id} routes on ${ifname}`,
      run: async () => { await removeRoutes(ifname, gone); await addRoutes(ifname, added); },
      undo: async () => { await removeRoutes(ifname, added); await addRoutes(ifname, gone); },
    });
  }
  const shaping = parts.shaper.peerStep(ifname, id, after);
  if (shaping) steps.push(shaping);
  try {
    // A new peer has no session to keep: its batch and its `wg set` go at once (it is dropped
    // until both hold). A change of a peer that exists goes nft first, so that a refused batch
    // never cuts a live tunnel.
    await (held === null ? runTogether(steps, parts.log) : runSteps(steps, parts.log));
  } catch (err) {
    // A `wg` killed past its bound may still be applied later, after its undo: read the peer back then.
    if (wgKilled) for (const key of new Set([held?.publicKey, after?.publicKey])) if (key) parts.readBackLater(server.id, key);
    throw err;
  }
}
