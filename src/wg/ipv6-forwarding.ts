// IPv6 forwarding for a forward-mode interface, per interface and not for the whole router:
// `net.ipv6.conf.all.forwarding=1` would make every interface a router (and stop SLAAC on
// the WAN). Kernels from 6.17 have `force_forwarding` per interface; older ones forward
// IPv6 only with `all.forwarding` set, which wgcp leaves to the operator (the Debian package's
// sysctl.d sets it) and says so. Forwarding found already on is never written again: under
// systemd's ProtectKernelTunables= /proc/sys is read-only to the daemon.
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../log';
import type { ServerRecord } from '../store/servers';

const CONF = '/proc/sys/net/ipv6/conf';

export type Ipv6ForwardingResult = 'per-interface' | 'router-wide' | 'off' | 'no-ipv6';

function write(file: string, value: string): boolean {
  try {
    fs.writeFileSync(file, value);
    return true;
  } catch {
    return false;
  }
}

const read = (file: string): string | null => {
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch {
    return null;
  }
};

/** How IPv6 from `ifname` is forwarded now, reading alone: the router's `all.forwarding` first, else the interface's own `force_forwarding`. */
export function ipv6ForwardingNow(ifname: string): Ipv6ForwardingResult {
  const dir = path.join(CONF, ifname);
  if (!fs.existsSync(dir)) return 'no-ipv6';
  if (read(path.join(CONF, 'all', 'forwarding')) === '1') return 'router-wide';
  return read(path.join(dir, 'force_forwarding')) === '1' && read(path.join(dir, 'forwarding')) === '1' ? 'per-interface' : 'off';
}

/** Turns IPv6 forwarding on for `ifname` as far as this kernel allows, and says how far that is. */
export function enableIpv6Forwarding(ifname: string): Ipv6ForwardingResult {
  const now = ipv6ForwardingNow(ifname);
  if (now !== 'off') return now;
  const dir = path.join(CONF, ifname);
  write(path.join(dir, 'forwarding'), '1');
  if (fs.existsSync(path.join(dir, 'force_forwarding')) && write(path.join(dir, 'force_forwarding'), '1')) return 'per-interface';
  return read(path.join(CONF, 'all', 'forwarding')) === '1' ? 'router-wide' : 'off';
}

/** Forward mode routes its peers' IPv6 too: forwarding on for its interface, said in the log. Standalone touches nothing. */
export function forwardIpv6(server: Pick<ServerRecord, 'mode' | 'address6' | 'interface'>, log: Logger): void {
  if (server.mode !== 'forward' || server.address6 === null) return;
  const how = enableIpv6Forwarding(server.interface);
  if (how === 'per-interface') log.info('IPv6 forwarding on for the interface', { interface: server.interface });
  else if (how === 'router-wide') log.info('IPv6 forwarding is on router-wide (net.ipv6.conf.all.forwarding=1)', { interface: server.interface });
  else if (how === 'off') {
    log.warn('IPv6 from this tunnel is not forwarded: the kernel has no per-interface force_forwarding and net.ipv6.conf.all.forwarding is 0 (wgcp does not turn IPv6 routing on for the whole router)', { interface: server.interface });
  }
}
