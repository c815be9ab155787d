// A kernel seam whose interface counters the test sets, recording every peer change it is
// asked for: usage and limit logic driven by exact numbers.
import { KernelOff, type KernelPlane, type PeerChange, type PeerCounters } from '../../src/kernel/plane';

export function countingKernel() {
  const counters = new Map<string, PeerCounters>();
  const applied: PeerChange[] = [];
  const kernel: KernelPlane = new KernelOff();
  kernel.peerCounters = async () => new Map(counters);
  kernel.applyPeer = async (c) => { applied.push(c); };
  return { kernel, counters, applied };
}
