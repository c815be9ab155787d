// After a `wg` was killed past its bound the peer is read back from its interface and put
// right from the model (src/kernel/peer-verify.ts says why), in the change runner's order;
// while the interface does not answer, tried again with back-off.
import type { Logger } from '../log';
import { dumpInterface } from '../wg/link';
import { TOOL_TIMEOUT_MS } from '../exec/command';
import type { ServerModel } from './model';
import { runPeerOps } from './peer-change';
import { repairOpsFor } from './peer-verify';

/** Read-backs of a peer after a killed `wg`: 1, 2, 4 ... 30 s apart, about ten minutes in all. */
const VERIFY_ATTEMPTS = 25;

export class PeerReadBack {
  /** `upModel`: the server's model while it is up and the plane open, else undefined (nothing to read back). */
  constructor(private readonly log: Logger, private readonly serialize: (what: string, work: () => Promise<void>) => Promise<void>,
    private readonly upModel: (serverId: number) => ServerModel | undefined) {}

  later(serverId: number, key: string, attempt = 0): void {
    if (attempt >= VERIFY_ATTEMPTS) {
      this.log.error('a peer could not be read back after a killed tool: the kernel may differ from the database until restart', { serverID: serverId });
      return;
    }
    const timer = setTimeout(() => void this.serialize('verify a peer', async () => {
      const model = this.upModel(serverId);
      if (!model) return;
      const ifname = model.server.interface;
      try {
        const dump = await dumpInterface(ifname, TOOL_TIMEOUT_MS);
        const wanted = [...model.peers.values()].find((p) => p.publicKey === key) ?? null;
        const ops = repairOpsFor(ifname, dump, key, wanted);
        await runPeerOps(ops);
        if (ops.length) this.log.warn('a peer was put right after a killed tool', { serverID: serverId, interface: ifname, calls: ops.length });
      } catch {
        this.later(serverId, key, attempt + 1);
      }
    }), Math.min(1000 * 2 ** attempt, 30_000));
    timer.unref();
  }
}
