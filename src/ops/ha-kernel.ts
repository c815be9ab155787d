// A standby keeps its own kernel in the desired state of the rows it follows: after a batch
// of the primary's changes is stored, each server it touched is synced to what the store
// now says (src/ops/kernel-sync.ts, one change of the runner a server): a partial sync of
// the peers the batch named (constant time a peer), the whole server when its own row moved.
//
// syncServersToKernel is the one call the follower makes.
import type { App } from '../app';
import type { JournalEntry } from '../store/ha';
import { syncServer } from './kernel-sync';

/** What each server's sync takes: the peers named, or 'all'. */
export type TouchedServers = Map<number, number[] | 'all'>;

function touch(out: TouchedServers, serverId: number | undefined, peerId: number | 'all' | null): void {
  if (serverId === undefined || !Number.isSafeInteger(serverId)) return;
  const held = out.get(serverId) ?? [];
  if (held === 'all') return;
  if (peerId === 'all') out.set(serverId, 'all');
  else out.set(serverId, peerId === null || held.includes(peerId) ? held : [...held, peerId]);
}

/**
 * The servers a batch touches, read before it is stored (`serverOf`: a peer's server now,
 * so a peer that moves or goes is synced where it was too). A device or forward moved: every
 * server's forwards (a sync compares them all).
 */
export function touchedServers(entries: readonly JournalEntry[], serverOf: (peerId: number) => number | undefined, servers: () => number[]): TouchedServers {
  const out: TouchedServers = new Map();
  for (const e of entries) {
    if (e.tbl === 'servers') touch(out, Number(e.pk.id), 'all');
    else if (e.tbl === 'peers' || e.tbl === 'peer_access') {
      const peerId = Number(e.tbl === 'peers' ? e.pk.id : e.pk.peer_id);
      if (e.tbl === 'peers') touch(out, Number(e.row?.server_id), peerId);
      touch(out, serverOf(peerId), peerId);
    } else if (e.tbl === 'devices' || e.tbl === 'port_forwards') {
      for (const id of servers()) touch(out, id, null);
    }
  }
  return out;
}

/** Syncs each touched server's kernel to the store, one after another, in the runner's turn; resolves to the servers that failed. */
export async function syncServersToKernel(app: App, touched: TouchedServers): Promise<number[]> {
  const failed: number[] = [];
  for (const [serverId, peers] of touched) {
    try {
      await syncServer(app, serverId, { peers }, { replicated: true });
    } catch (err) {
      // The rows are held; a later sync of the server, or the reconciler after a promotion, puts the kernel right.
      failed.push(serverId);
      app.log.error('the standby could not bring a followed server to its kernel', { serverID: serverId, error: err instanceof Error ? err.message : String(err) });
    }
  }
  return failed;
}
