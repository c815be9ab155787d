// Picks the kernel backend from WGCP_KERNEL. Until the live backend is built, `auto`
// falls back to `off` (loudly) and `on` refuses to start.
import type { Config } from '../config';
import type { Logger } from '../log';
import { KernelOff, type KernelPlane } from './plane';

export class KernelUnavailable extends Error {}

export function selectKernel(config: Config, log: Logger): KernelPlane {
  const reason = 'this build has no live kernel backend yet';
  if (config.kernel === 'on') throw new KernelUnavailable(`WGCP_KERNEL=on but the kernel cannot be driven: ${reason}`);
  if (config.kernel === 'auto') log.warn('kernel backend is OFF: changes are stored but not applied to WireGuard or nftables', { reason });
  return new KernelOff();
}
