// A kernel backend that is on and holds one server failed, as the daemon reports a server
// whose UDP port another program holds (proven for real, as root, in kernel-ownership):
// here only the page's showing of it is under test, so it runs without root.
import { KernelOff, type KernelPlane, type ServerKernelState } from '../src/kernel/plane';
import type { ServerFailure } from '../src/kernel/failed-servers';

export function kernelWithFailedServer(serverId: number, reason: string): KernelPlane {
  const failure: ServerFailure = {
    serverId, interface: `wgcp${serverId}`, reason, since: new Date().toISOString(), attempts: 2,
    nextRetryAt: new Date(Date.now() + 60_000).toISOString(),
  };
  const kernel = new KernelOff();
  return Object.assign(kernel, {
    state: 'on', reason: undefined,
    serverState: (id: number): ServerKernelState => (id === serverId ? { state: 'failed', ...failure } : { state: 'up' }),
    failures: () => [failure],
  }) as unknown as KernelPlane;
}
