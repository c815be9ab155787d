// The full sync of one interface's WireGuard peers: read (`wg show <if> dump`), diff against
// the peers wgcp holds (src/kernel/reconcile-peers.ts, pure) and apply as one batch: the
// peers that are not wgcp's removed (many to a `wg set`), every missing or wrong peer in one
// `wg addconf` read from a 0600 file. 10,000 drifted peers are two tool runs, not 10,000.
// The reconciler's repair (and the repair of peers that could not be read) go through it.
import { SECRET_FILE, run } from '../exec/command';
import { dumpInterface } from '../wg/link';
import type { ServerModel } from './model';
import { runWgBatch } from './peer-sync';
import { peerDrift, peerRepair, wantedOfModel, type PeerDrift, type PeerRepair } from './reconcile-peers';

/** Applies a peer repair: removals, then one addconf (a whole interface's worth takes wireguard-go about 2 s). */
export async function applyPeerRepair(ifname: string, r: PeerRepair): Promise<void> {
  if (r.removals.length) await runWgBatch(ifname, r.removals);
  if (r.conf !== null) await run('wg', ['addconf', ifname, SECRET_FILE], { secret: r.conf, timeoutMs: 60_000 });
}

/** Reads the interface and diffs it against the model's peers; null when nothing differs. */
export async function readPeerDrift(m: ServerModel, timeoutMs?: number): Promise<PeerDrift | null> {
  const dump = await dumpInterface(m.server.interface, timeoutMs);
  return peerDrift(dump, wantedOfModel(m));
}

/** Read, diff, apply: the interface holds the model's peers after it. Resolves with the drift put right, or null. */
export async function syncInterfacePeers(m: ServerModel, timeoutMs?: number): Promise<PeerDrift | null> {
  const drift = await readPeerDrift(m, timeoutMs);
  if (drift) await applyPeerRepair(m.server.interface, peerRepair(m.server.interface, drift));
  return drift;
}
