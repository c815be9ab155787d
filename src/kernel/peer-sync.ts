// The partial sync: the peers a change names, from the rows the kernel holds (the model) to
// the rows the change writes, in one nft batch, one `wg set` a server's interface (up to
// WG_ARGS_BYTES of arguments a call, each preshared key in a 0600 file), one `ip -batch` of
// the routes of the networks behind them, and their bandwidth limits through the one
// `tc -batch` session (src/shaping/tc-session.ts). One peer's change and a boundary of
// access schedules at 10,000 peers are the same code: its cost follows the peers named, not
// the peers held. A failure undoes what was applied, in reverse; the undo of a partial sync
// is the partial sync back to the rows held before. The plan is pure (planPeerSync).
import type { Logger } from '../log';
import { diff } from '../nft/diff';
import { mergeAll, type PolicyElements } from '../nft/elements';
import { forwardSlice, peerSlice } from '../nft/policy';
import type { Shaper } from '../shaping/shaper';
import type { KernelPeer } from '../store/peers';
import { addRoutes, removeRoutes } from '../wg/peer-routes';
import { networksOf, peerOps, type PeerOp } from '../wg/uapi-conf';
import { CommandError, SECRET_FILE, run, withSecretFiles } from '../exec/command';
import type { ServerModel } from './model';
import type { PeerChange } from './plane';
import { runSteps, runTogether, type Step } from './steps';

/**
 * The bytes of arguments one `wg set` carries: a quarter of the usual 2 MiB ARG_MAX of a
 * Linux stack of 8 MiB (about 3,000 peers at some 170 bytes each with their pointers), so a
 * sync of up to that many peers is one call and 10,000 are four.
 */
export const WG_ARGS_BYTES = 512 * 1024;

export interface PeerSyncPlan {
  nft: string;
  nftReverse: string;
  /** Per server's interface: its `wg set` operations forward and back, the networks whose routes go and come, the peers whose limits follow. */
  servers: Array<{
    serverId: number;
    ifname: string;
    ops: PeerOp[];
    restore: PeerOp[];
    routesGone: string[];
    routesAdded: string[];
    limits: Array<{ id: number; after: KernelPeer | null }>;
  }>;
  /** Every peer named is new to the kernel: no live session to keep, so its steps may go at once. */
  fresh: boolean;
}

const idOf = (c: PeerChange<KernelPeer>): number => (c.after ?? c.before)!.id;

/** Pure: the sync that takes the models' peers to the changes' `after` (servers that are up only). */
export function planPeerSync(changes: PeerChange<KernelPeer>[], model: (serverId: number) => ServerModel): PeerSyncPlan {
  const byServer = new Map<number, PeerChange<KernelPeer>[]>();
  for (const c of changes) {
    const list = byServer.get(c.server.id);
    if (list) list.push(c); else byServer.set(c.server.id, [c]);
  }
  const was: PolicyElements[] = [];
  const will: PolicyElements[] = [];
  const servers: PeerSyncPlan['servers'] = [];
  let fresh = true;
  for (const [serverId, list] of byServer) {
    const m = model(serverId);
    const ifname = m.server.interface;
    const after = new Map<number, KernelPeer | null>(list.map((c) => [idOf(c), c.after]));
    const lookupBefore = (x: number) => m.peers.get(x);
    const lookupAfter = (x: number) => (after.has(x) ? after.get(x) ?? undefined : m.peers.get(x));
    const s: PeerSyncPlan['servers'][number] = { serverId, ifname, ops: [], restore: [], routesGone: [], routesAdded: [], limits: [] };
    for (const c of list) {
      const id = idOf(c);
      const held = m.peers.get(id) ?? null;
      if (held) fresh = false;
      was.push(peerSlice(m.server, held, lookupBefore, m.referrersOf(id)));
      will.push(peerSlice(m.server, c.after, lookupAfter, m.referrersOf(id)));
      // The peer's forwards that move with it go in the same nft batch: one change, one undo.
      for (const f of c.forwards?.before ?? []) was.push(forwardSlice(m.server, f));
      for (const f of c.forwards?.after ?? []) will.push(forwardSlice(m.server, f));
      s.ops.push(...peerOps(ifname, held, c.after));
      s.restore.push(...peerOps(ifname, c.after, held));
      // Only the networks that changed: one `ip route` each, whatever the number of peers.
      s.routesGone.push(...networksOf(held).filter((n) => !networksOf(c.after).includes(n)));
      s.routesAdded.push(...networksOf(c.after).filter((n) => !networksOf(held).includes(n)));
      s.limits.push({ id, after: c.after });
    }
    servers.push(s);
  }
  const before = mergeAll(was);
  const next = mergeAll(will);
  return { nft: diff(before, next), nftReverse: diff(next, before), servers, fresh };
}

/** A clause's cost against ARG_MAX: its bytes, its NUL and its pointer. */
const argBytes = (args: readonly string[]): number => args.reduce((n, a) => n + Buffer.byteLength(a) + 9, 0);

/** The ops in chunks whose arguments stay within WG_ARGS_BYTES (a secret file's path counted at its usual length). */
export function wgChunks(ops: PeerOp[]): PeerOp[][] {
  const out: PeerOp[][] = [];
  let chunk: PeerOp[] = [];
  let bytes = 0;
  for (const op of ops) {
    const cost = argBytes(op.args.slice(2)) + (op.secret === undefined ? 0 : 40);
    if (chunk.length > 0 && bytes + cost > WG_ARGS_BYTES) { out.push(chunk); chunk = []; bytes = 0; }
    chunk.push(op);
    bytes += cost;
  }
  if (chunk.length) out.push(chunk);
  return out;
}

/** `wg set <if>` with many peers' clauses in one call, each peer's preshared key in a private file of its own. */
export async function runWgBatch(ifname: string, ops: PeerOp[]): Promise<void> {
  for (const chunk of wgChunks(ops)) {
    await withSecretFiles(chunk.map((op) => op.secret ?? null), async (files) => {
      // Each op is `set <if> peer ...`: its clauses after the interface join one call.
      const args = ['set', ifname, ...chunk.flatMap((op, j) => op.args.slice(2).map((a) => (a === SECRET_FILE ? files[j]! : a)))];
      await run('wg', args);
    });
  }
}

export interface PeerSyncParts {
  model(serverId: number): ServerModel;
  /** A server that failed holds nothing in the kernel: its peers go in when it comes up. */
  failed(serverId: number): boolean;
  nft(batch: string): Promise<void>;
  shaper: Shaper;
  log: Logger;
  /** After a `wg` killed past its bound: the server's peers are synced again later, from the dump, in the runner's order. */
  resyncLater(serverId: number): void;
}

const killedTool = (err: unknown): boolean => err instanceof CommandError && err.tool === 'wg' && err.status === null && /did not answer/.test(err.message);

/** Applies the partial sync; the models themselves are the caller's to follow once it holds. */
export async function applyPeerSync(changes: PeerChange<KernelPeer>[], parts: PeerSyncParts): Promise<void> {
  const plan = planPeerSync(changes.filter((c) => !parts.failed(c.server.id)), (id) => parts.model(id));
  const steps: Step[] = [];
  if (plan.nft) steps.push({ what: `filter of ${changes.length} peers`, run: () => parts.nft(plan.nft), undo: () => parts.nft(plan.nftReverse) });
  const killed = new Set<number>();
  for (const s of plan.servers) {
    if (s.ops.length) {
      steps.push({
        what: `${s.ops.length} peer calls on ${s.ifname}`,
        run: async () => {
          try {
            await runWgBatch(s.ifname, s.ops);
          } catch (err) {
            // Put back even when the failed call was the first: a `wg` killed past its bound
            // may still reach wireguard-go, which applies it when it wakes up.
            if (killedTool(err)) killed.add(s.serverId);
            await runWgBatch(s.ifname, s.restore).catch(() => {});
            throw err;
          }
        },
        undo: () => runWgBatch(s.ifname, s.restore),
      });
    }
    if (s.routesGone.length || s.routesAdded.length) {
      steps.push({
        what: `routes of ${s.limits.length} peers on ${s.ifname}`,
        run: async () => { await removeRoutes(s.ifname, s.routesGone); await addRoutes(s.ifname, s.routesAdded); },
        undo: async () => { await removeRoutes(s.ifname, s.routesAdded); await addRoutes(s.ifname, s.routesGone); },
      });
    }
    for (const l of s.limits) {
      const shaping = parts.shaper.peerStep(s.ifname, l.id, l.after);
      if (shaping) steps.push(shaping);
    }
  }
  try {
    // New peers have no session to keep: their batch and their `wg set` go at once (they are
    // dropped until both hold). A change of peers that exist goes nft first, so that a
    // refused batch never cuts a live tunnel.
    await (plan.fresh ? runTogether(steps, parts.log) : runSteps(steps, parts.log));
  } catch (err) {
    // A killed `wg` and its undo may both be applied later, in any order: sync from the dump then.
    for (const id of killed) parts.resyncLater(id);
    throw err;
  }
}
