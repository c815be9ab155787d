// A peer's port forwards follow it: a deleted peer takes its forwards along, a moved peer
// moves their target. The peer's kernel change carries them, so the peer and its forwards
// apply (and roll back) as one change.
import type { PortForward } from '../kernel/plane';
import type { Store } from '../store/store';
import type { PeerRecord } from '../store/peers';

/** The forwards a change of `before` into `after` (null: a delete) moves; undefined when it moves none. */
export function forwardsOfPeerChange(store: Store, before: PeerRecord, after: PeerRecord | null): { before: PortForward[]; after: PortForward[] } | undefined {
  if (after !== null && after.ip === before.ip && after.ip6 === before.ip6) return undefined;
  const held = store.forwards.kernelForwardsOfPeer(before.id);
  if (held.length === 0) return undefined;
  return {
    before: held.map((f) => ({ ...f, targetIp: before.ip, targetIp6: before.ip6 })),
    after: after === null ? [] : held.map((f) => ({ ...f, targetIp: after.ip, targetIp6: after.ip6 })),
  };
}
