// Many peers' changes as one kernel batch: one nft batch for all of their elements, then per
// interface `wg set` calls that each carry up to WG_PEERS_PER_CALL peers. A boundary of
// access schedules at 10,000 peers costs one nft transaction and a few dozen `wg` calls, not
// 10,000 of each. A failure undoes what the batch applied, as one peer's change does.
import type { Logger } from '../log';
import { diff } from '../nft/diff';
import { mergeAll, type PolicyElements } from '../nft/elements';
import { forwardSlice, peerSlice } from '../nft/policy';
import type { KernelPeer } from '../store/peers';
import { peerOps, type PeerOp } from '../wg/uapi-conf';
import { SECRET_FILE, run, withSecretFiles } from '../exec/command';
import type { ServerModel } from './model';
import type { PeerChange } from './plane';
import { runSteps, type Step } from './steps';

/** Peers one `wg set` carries: its arguments stay far below the kernel's limit (about 150 bytes a peer). */
export const WG_PEERS_PER_CALL = 250;

export interface PeerBatchPlan {
  nft: string;
  nftReverse: string;
  /** Per interface, the `wg set` operations forward and back. */
  wg: Array<{ ifname: string; ops: PeerOp[]; restore: PeerOp[] }>;
}

/** Pure: the batch that takes the models' peers to the changes' `after`, over servers that are up. */
export function planPeerBatch(changes: PeerChange[], model: (serverId: number) => ServerModel): PeerBatchPlan {
  const byServer = new Map<number, PeerChange[]>();
  for (const c of changes) {
    const list = byServer.get(c.server.id);
    if (list) list.push(c); else byServer.set(c.server.id, [c]);
  }
  const was: PolicyElements[] = [];
  const will: PolicyElements[] = [];
  const wg: PeerBatchPlan['wg'] = [];
  for (const [serverId, list] of byServer) {
    const m = model(serverId);
    const after = new Map<number, KernelPeer | null>(list.map((c) => [(c.after ?? c.before)!.id, c.after]));
    const lookupBefore = (x: number) => m.peers.get(x);
    const lookupAfter = (x: number) => (after.has(x) ? after.get(x) ?? undefined : m.peers.get(x));
    const ops: PeerOp[] = [];
    const restore: PeerOp[] = [];
    for (const c of list) {
      const id = (c.after ?? c.before)!.id;
      const held = m.peers.get(id) ?? null;
      was.push(peerSlice(m.server, held, lookupBefore, m.referrersOf(id)));
      will.push(peerSlice(m.server, c.after, lookupAfter, m.referrersOf(id)));
      for (const f of c.forwards?.before ?? []) was.push(forwardSlice(m.server, f));
      for (const f of c.forwards?.after ?? []) will.push(forwardSlice(m.server, f));
      ops.push(...peerOps(m.server.interface, held, c.after));
      restore.push(...peerOps(m.server.interface, c.after, held));
    }
    if (ops.length || restore.length) wg.push({ ifname: m.server.interface, ops, restore });
  }
  const before = mergeAll(was);
  const next = mergeAll(will);
  return { nft: diff(before, next), nftReverse: diff(next, before), wg };
}

/** `wg set <if>` with many peers' clauses in one call, each peer's preshared key in a private file of its own. */
export async function runWgBatch(ifname: string, ops: PeerOp[]): Promise<void> {
  for (let i = 0; i < ops.length; i += WG_PEERS_PER_CALL) {
    const chunk = ops.slice(i, i + WG_PEERS_PER_CALL);
    await withSecretFiles(chunk.map((op) => op.secret ?? null), async (files) => {
      // Each op is `set <if> peer ...`: its clauses after the interface join one call.
      const args = ['set', ifname, ...chunk.flatMap((op, j) => op.args.slice(2).map((a) => (a === SECRET_FILE ? files[j]! : a)))];
      await run('wg', args);
    });
  }
}

export interface BatchBackend {
  model(serverId: number): ServerModel;
  failed(serverId: number): boolean;
  nft(batch: string): Promise<void>;
  log: Logger;
}

/** Applies the batch: the filter first (a refused batch never cuts a live tunnel), then each interface. */
export async function applyPeerBatch(changes: PeerChange[], k: BatchBackend): Promise<void> {
  const plan = planPeerBatch(changes.filter((c) => !k.failed(c.server.id)), (id) => k.model(id));
  const steps: Step[] = [];
  if (plan.nft) steps.push({ what: `filter of ${changes.length} peers`, run: () => k.nft(plan.nft), undo: () => k.nft(plan.nftReverse) });
  for (const w of plan.wg) {
    // A part of an interface's calls may have landed before one failed: all of its restore runs.
    steps.push({
      what: `${w.ops.length} peer calls on ${w.ifname}`,
      run: async () => {
        try { await runWgBatch(w.ifname, w.ops); } catch (err) { await runWgBatch(w.ifname, w.restore).catch(() => {}); throw err; }
      },
      undo: () => runWgBatch(w.ifname, w.restore),
    });
  }
  await runSteps(steps, k.log);
}
