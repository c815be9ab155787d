// Picks the kernel backend from WGCP_KERNEL: `off` never touches the kernel, `on` refuses
// to start when it cannot drive it, `auto` drives it when it can and otherwise runs `off`,
// saying so in the log and in /healthz.
import type { Config } from '../config';
import type { Logger } from '../log';
import { kernelDriver } from '../wg/link';
import { UserspaceDriver } from '../wg/userspace';
import { KernelLive } from './live';
import { KernelOff, type KernelPlane } from './plane';
import { probeKernel } from './probe';

export class KernelUnavailable extends Error {}

export function liveKernel(log: Logger, wireguard: 'kernel' | 'wireguard-go', wanInterfaces: string[] | null = null): KernelLive {
  if (wireguard === 'kernel') return new KernelLive(log, kernelDriver, wanInterfaces);
  let live: KernelLive | undefined;
  const driver = new UserspaceDriver(log, async (ifname) => {
    try {
      await live?.restoreInterface(ifname);
    } catch (err) {
      log.error('could not restore an interface after wireguard-go restarted', { interface: ifname, error: err instanceof Error ? err.message : String(err) });
    }
  });
  live = new KernelLive(log, driver, wanInterfaces);
  return live;
}

export function selectKernel(config: Config, log: Logger): KernelPlane {
  if (config.kernel === 'off') {
    log.warn('kernel backend is OFF (WGCP_KERNEL=off): changes are stored but not applied to WireGuard or nftables');
    return new KernelOff('WGCP_KERNEL=off');
  }
  const probe = probeKernel();
  if (!probe.ok) {
    if (config.kernel === 'on') throw new KernelUnavailable(`WGCP_KERNEL=on but the kernel cannot be driven: ${probe.reason}`);
    log.warn('kernel backend is OFF: changes are stored but not applied to WireGuard or nftables', { reason: probe.reason });
    return new KernelOff(probe.reason);
  }
  log.info('kernel backend is ON', { wireguard: probe.wireguard, ip: probe.ip });
  return liveKernel(log, probe.wireguard, config.wanInterfaces);
}
