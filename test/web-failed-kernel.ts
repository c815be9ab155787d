// A kernel backend that is on and holds one server failed, as the daemon reports a server
// whose UDP port another program holds (proven for real, as root, in kernel-ownership):
// here only the page's showing of it is under test, so it runs without root.
import { KernelOff, type KernelPlane, type KernelRepairNote, type ServerKernelState } from '../src/kernel/plane';
import type { ServerFailure } from '../src/kernel/failed-servers';

/** `lastRepair`: the reconciler's last repair the seam reports for the server (real repairs: kernel-drift). */
export function kernelWithFailedServer(serverId: number, reason: string, lastRepair?: KernelRepairNote): KernelPlane {
  const failure: ServerFailure = {
    serverId, interface: `wgcp${serverId}`, reason, since: new Date().toISOString(), attempts: 2,
    nextRetryAt: new Date(Date.now() + 60_000).toISOString(),
  };
  const kernel = new KernelOff();
  return Object.assign(kernel, {
    state: 'on', reason: undefined,
    serverState: (id: number): ServerKernelState => (id === serverId ? { state: 'failed', ...failure, ...(lastRepair && { lastRepair }) } : { state: 'up' }),
    failures: () => [failure],
  }) as unknown as KernelPlane;
}
