// What the kernel holds, as last applied: per server its record, peers, forwards and who
// names whom in allowAccess. Diffs are taken against this, never against a guess. A peer is
// kept as the kernel needs it (KernelPeer: no private key, names, dates or usage), copied
// into one literal: at 10,000 peers this is about 3 MB where whole records were 11.
import type { KernelPeer } from '../store/peers';
import type { ServerRecord } from '../store/servers';
import type { ServerView } from '../nft/policy';
import type { PortForward, ServerState } from './plane';

const NO_ACCESS: readonly number[] = Object.freeze([]);
const NO_NETWORKS: readonly string[] = Object.freeze([]);
/** Revisions of peer sets, unique across models: a cache keyed on one is never fooled by another. */
let lastRevision = 0;

/** The kernel's copy of a peer: one shared hidden class, the empty allowAccess shared too. */
export const kernelPeer = (p: KernelPeer): KernelPeer => ({
  id: p.id, ip: p.ip, ip6: p.ip6, publicKey: p.publicKey, presharedKey: p.presharedKey,
  allowAccess: p.allowAccess.length === 0 ? NO_ACCESS as number[] : [...p.allowAccess], allowInternet: p.allowInternet, enabled: p.enabled,
  downloadLimitMbps: p.downloadLimitMbps ?? null, uploadLimitMbps: p.uploadLimitMbps ?? null,
  networks: p.networks === undefined || p.networks.length === 0 ? NO_NETWORKS as string[] : [...p.networks],
  lanAccess: reachCopy(p.lanAccess), reachableFrom: reachCopy(p.reachableFrom),
});

const reachCopy = (r: KernelPeer['lanAccess']): 'lan' | string[] => (r === 'lan' ? 'lan' : r === undefined || r.length === 0 ? NO_NETWORKS as string[] : [...r]);

export class ServerModel implements ServerView {
  readonly peers: Map<number, KernelPeer>;
  readonly forwards: Map<number, PortForward>;
  /** target peer id -> ids of peers whose allowAccess names it. */
  private readonly referrers: Map<number, Set<number>>;
  /** Moves on every change of the peers (shared with the models that share them): what is derived from them can be kept. */
  private readonly revisionBox: { value: number };

  constructor(public server: ServerRecord, peers: Iterable<KernelPeer> = [], forwards: Iterable<PortForward> = [], shared?: ServerModel) {
    this.peers = shared?.peers ?? new Map();
    this.forwards = shared?.forwards ?? new Map();
    this.referrers = shared?.referrers ?? new Map();
    this.revisionBox = shared?.revisionBox ?? { value: ++lastRevision };
    for (const p of peers) this.putPeer(p);
    for (const f of forwards) this.forwards.set(f.id, f);
  }

  static of(state: ServerState): ServerModel { return new ServerModel(state.server, state.peers, state.forwards); }

  get revision(): number { return this.revisionBox.value; }

  referrersOf(id: number): Iterable<number> { return this.referrers.get(id) ?? []; }

  /**
   * The same peers and forwards under another server record, in O(1): the two share them,
   * and the caller keeps only one (the old one while the change may still be undone).
   */
  withServer(server: ServerRecord): ServerModel {
    return new ServerModel(server, [], [], this);
  }

  putPeer(record: KernelPeer): void {
    const peer = kernelPeer(record);
    this.revisionBox.value = ++lastRevision;
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
    this.revisionBox.value = ++lastRevision;
    this.unlink(old);
    this.peers.delete(id);
    for (const s of this.referrers.get(id) ?? []) {
      const src = this.peers.get(s);
      if (src) this.peers.set(s, kernelPeer({ ...src, allowAccess: src.allowAccess.filter((t) => t !== id) }));
    }
    this.referrers.delete(id);
  }

  private unlink(peer: KernelPeer): void {
    for (const t of peer.allowAccess) this.referrers.get(t)?.delete(peer.id);
  }
}
