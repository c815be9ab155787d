// After a `wg` was killed past its bound, the interface may still take what it was told
// (wireguard-go, stopped, applies the request when it wakes) and its undo may come first:
// each connection to its socket is served on its own. So the peer is read back later and
// put right from the model. Pure: the calls that make a dump hold the model's peer.
import type { KernelPeer } from '../store/peers';
import { presharedKeyAsShown } from '../wg/keys';
import { allowedIpOf, peerOps, peerRemoveArgs, type PeerOp } from '../wg/uapi-conf';

const sorted = (list: string): string => list.split(',').map((s) => s.trim()).filter(Boolean).sort().join(',');

/** The `wg set` calls that make the interface hold `wanted` under `key` (or not hold `key` at all), from its `wg show dump`. */
export function repairOpsFor(ifname: string, dump: string, key: string, wanted: KernelPeer | null): PeerOp[] {
  const line = dump.split('\n').slice(1).find((l) => l.startsWith(`${key}\t`));
  const live = wanted && wanted.enabled ? wanted : null;
  if (!line) return live ? peerOps(ifname, null, live) : [];
  if (!live) return [{ args: peerRemoveArgs(ifname, key) }];
  const [, psk, , allowed] = line.split('\t');
  if (sorted(allowed ?? '') !== sorted(allowedIpOf(live)) || psk !== presharedKeyAsShown(live.presharedKey)) return peerOps(ifname, null, live);
  return [];
}
