// After a `wg` was killed past its bound, the interface may still take what it was told
// (wireguard-go, stopped, applies the request when it wakes) and its undo may come first:
// each connection to its socket is served on its own. So the server is synced again later
// through the one full sync (src/ops/kernel-sync.ts: a change of the runner, in order with
// every other), whose read-back puts the interface's peers right; while the interface does
// not answer (its peers could not be read, or not put right), tried again with back-off.
import type { Logger } from '../log';
import type { SyncUndo } from './server-sync';

/** Syncs after a killed tool: 1, 2, 4 ... 30 s apart, about ten minutes in all. */
const ATTEMPTS = 25;

export class PeerResync {
  private readonly waiting = new Set<number>();

  /** `sync`: the server's full sync through the runner, or undefined when there is nothing to sync (the server down, the plane closed, no runner). */
  constructor(private readonly log: Logger, private readonly sync: (serverId: number) => Promise<SyncUndo | undefined> | undefined) {}

  later(serverId: number, attempt = 0): void {
    if (attempt === 0 && this.waiting.has(serverId)) return;
    if (attempt >= ATTEMPTS) {
      this.waiting.delete(serverId);
      this.log.error('the peers of a server could not be synced after a killed tool: the kernel may differ from the database until restart', { serverID: serverId });
      return;
    }
    this.waiting.add(serverId);
    const timer = setTimeout(() => void this.attempt(serverId, attempt), Math.min(1000 * 2 ** attempt, 30_000));
    timer.unref();
  }

  private async attempt(serverId: number, attempt: number): Promise<void> {
    try {
      const held = await this.sync(serverId);
      const repairs = held?.repairs;
      if (repairs && repairs.failed.length) throw new Error(repairs.failed.map((f) => f.error).join('; '));
      this.waiting.delete(serverId);
      const peers = repairs?.repaired.filter((f) => f.kind === 'peer') ?? [];
      if (peers.length) this.log.warn('the peers of a server were synced after a killed tool', { serverID: serverId, repairs: peers.reduce((n, f) => n + f.items, 0), ...peers[0]!.counts });
    } catch (err) {
      this.log.info('a sync after a killed tool could not put the peers right yet: tried again', { serverID: serverId, attempt: attempt + 1, error: err instanceof Error ? err.message : String(err) });
      this.later(serverId, attempt + 1);
    }
  }
}
