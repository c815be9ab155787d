// After a `wg` was killed past its bound, the interface may still take what it was told
// (wireguard-go, stopped, applies the request when it wakes) and its undo may come first:
// each connection to its socket is served on its own. So the server's peers are synced
// again later from the dump (src/kernel/interface-peers.ts), in the change runner's order;
// while the interface does not answer, tried again with back-off.
import type { Logger } from '../log';
import { TOOL_TIMEOUT_MS } from '../exec/command';
import type { ServerModel } from './model';
import { syncInterfacePeers } from './interface-peers';

/** Syncs after a killed tool: 1, 2, 4 ... 30 s apart, about ten minutes in all. */
const ATTEMPTS = 25;

export class PeerResync {
  private readonly waiting = new Set<number>();

  /** `upModel`: the server's model while it is up and the plane open, else undefined (nothing to sync). */
  constructor(private readonly log: Logger, private readonly serialize: (what: string, work: () => Promise<void>) => Promise<void>,
    private readonly upModel: (serverId: number) => ServerModel | undefined) {}

  later(serverId: number, attempt = 0): void {
    if (attempt === 0 && this.waiting.has(serverId)) return;
    if (attempt >= ATTEMPTS) {
      this.waiting.delete(serverId);
      this.log.error('the peers of a server could not be synced after a killed tool: the kernel may differ from the database until restart', { serverID: serverId });
      return;
    }
    this.waiting.add(serverId);
    const timer = setTimeout(() => void this.serialize(`sync the peers of server ${serverId}`, async () => {
      const model = this.upModel(serverId);
      if (!model) { this.waiting.delete(serverId); return; }
      try {
        const drift = await syncInterfacePeers(model, TOOL_TIMEOUT_MS);
        this.waiting.delete(serverId);
        if (drift) this.log.warn('the peers of a server were synced after a killed tool', { serverID: serverId, interface: model.server.interface, missing: drift.missing.length, wrong: drift.wrong.length, extra: drift.extra.length });
      } catch {
        this.later(serverId, attempt + 1);
      }
    }), Math.min(1000 * 2 ** attempt, 30_000));
    timer.unref();
  }
}
