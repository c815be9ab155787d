// Pure usage arithmetic: from the counters last seen and the counters now, how many bytes
// a peer moved. Counters only grow while a peer stays on its interface; a smaller value
// means they started again from zero (interface restart, peer re-added), so the new value
// is all new traffic.
import type { Baseline, BaselineRow, UsagePeer } from '../store/usage';

export interface Counters { rxBytes: number; txBytes: number; latestHandshake: number; endpoint?: string }

/** Bytes received and sent (the router's side) since the baseline: [rx, tx]. */
export function counterDeltas(prev: Baseline | null | undefined, publicKey: string, cur: Counters): [number, number] {
  // No baseline, or one for another key (the key changed): the peer is new on the interface.
  if (!prev || prev.publicKey !== publicKey) return [cur.rxBytes, cur.txBytes];
  const rx = cur.rxBytes >= prev.rxBytes ? cur.rxBytes - prev.rxBytes : cur.rxBytes;
  const tx = cur.txBytes >= prev.txBytes ? cur.txBytes - prev.txBytes : cur.txBytes;
  return [rx, tx];
}

export function counterDelta(prev: Baseline | null | undefined, publicKey: string, cur: Counters): number {
  const [rx, tx] = counterDeltas(prev, publicKey, cur);
  return rx + tx;
}

export interface UsagePlan {
  /** [peer id, server id, rx, tx] for peers that moved traffic since the last cycle: their usage grows by rx + tx, and the history takes them. */
  traffic: [number, number, number, number][];
  /** [peer id, public key, rx, tx, latest handshake] to remember, for peers whose counters changed. */
  baselines: BaselineRow[];
  /** Servers skipped because their interface reported nothing while enabled peers exist. */
  skippedServers: number[];
}

/**
 * One cycle's plan. Peers missing from their interface's counters keep their baseline: a
 * transient read failure must never make the next cycle count a whole counter twice. Peers
 * off now, or in `stale` (their baseline forgotten after the counters were read), are left
 * to the next cycle: their counters are from before they left the interface.
 */
export function planUsageCycle(
  peers: readonly UsagePeer[],
  countersByServer: ReadonlyMap<number, ReadonlyMap<string, Counters>>,
  stale: ReadonlySet<number> = new Set(),
): UsagePlan {
  const plan: UsagePlan = { traffic: [], baselines: [], skippedServers: [] };
  const skipped = new Set<number>();
  for (const peer of peers) {
    const counters = countersByServer.get(peer.serverId);
    if (!counters || skipped.has(peer.serverId)) continue;
    if (counters.size === 0) {
      if (peer.enabled) { skipped.add(peer.serverId); plan.skippedServers.push(peer.serverId); }
      continue;
    }
    const cur = counters.get(peer.publicKey);
    if (!cur || !peer.enabled || stale.has(peer.id)) continue;
    const prev = peer.baseline;
    const [rx, tx] = counterDeltas(prev, peer.publicKey, cur);
    if (rx + tx > 0) {
      plan.traffic.push([peer.id, peer.serverId, rx, tx]);
    }
    if (!prev || prev.publicKey !== peer.publicKey || prev.rxBytes !== cur.rxBytes || prev.txBytes !== cur.txBytes
      || prev.latestHandshake !== cur.latestHandshake) {
      plan.baselines.push([peer.id, peer.publicKey, cur.rxBytes, cur.txBytes, cur.latestHandshake]);
    }
  }
  return plan;
}

/** The usage month a moment falls in, in local time (the reset runs 00:00 on the 1st, local). */
export function usageMonth(d: Date): string {
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}`;
}

