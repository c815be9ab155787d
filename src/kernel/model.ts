// What the kernel holds, as last applied: per server its record, peers, forwards and who
// names whom in allowAccess. Diffs are taken against this, never against a guess.
import type { PeerRecord } from '../store/peers';
import type { ServerRecord } from '../store/servers';
import type { ServerView } from '../nft/policy';
import type { PortForward, ServerState } from './plane';

export class ServerModel implements ServerView {
  readonly peers = new Map<number, PeerRecord>();
  readonly forwards = new Map<number, PortForward>();
  /** target peer id -> ids of peers whose allowAccess names it. */
  private readonly referrers = new Map<number, Set<number>>();

  constructor(public server: ServerRecord, peers: Iterable<PeerRecord> = [], forwards: Iterable<PortForward> = []) {
    for (const p of peers) this.putPeer(p);
    for (const f of forwards) this.forwards.set(f.id, f);
  }

  static of(state: ServerState): ServerModel { return new ServerModel(state.server, state.peers, state.forwards); }

  referrersOf(id: number): Iterable<number> { return this.referrers.get(id) ?? []; }

  /** A copy with another server record and the same peers and forwards. */
  withServer(server: ServerRecord): ServerModel {
    return new ServerModel(server, this.peers.values(), this.forwards.values());
  }

  putPeer(peer: PeerRecord): void {
    const old = this.peers.get(peer.id);
    if (old) this.unlink(old);
    this.peers.set(peer.id, peer);
    for (const t of peer.allowAccess) {
      let set = this.referrers.get(t);
      if (!set) this.referrers.set(t, (set = new Set()));
      set.add(peer.id);
    }
  }

  /** Removes a peer; as the database's cascade does, other peers stop naming it. */
  deletePeer(id: number): void {
    const old = this.peers.get(id);
    if (!old) return;
    this.unlink(old);
    this.peers.delete(id);
    for (const s of this.referrers.get(id) ?? []) {
      const src = this.peers.get(s);
      if (src) this.peers.set(s, { ...src, allowAccess: src.allowAccess.filter((t) => t !== id) });
    }
    this.referrers.delete(id);
  }

  private unlink(peer: PeerRecord): void {
    for (const t of peer.allowAccess) this.referrers.get(t)?.delete(peer.id);
  }
}
