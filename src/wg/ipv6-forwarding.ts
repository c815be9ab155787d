// IPv6 forwarding for a forward-mode interface, per interface and not for the whole router:
// `net.ipv6.conf.all.forwarding=1` would make every interface a router (and stop SLAAC on
// the WAN). Kernels from 6.17 have `force_forwarding` per interface; older ones forward
// IPv6 only with `all.forwarding` set, which wgcp leaves to the operator and says so.
// Forwarding already on (router-wide, or set for the interface by sysctl.d) is taken as it
// is: nothing is written, so a read-only /proc/sys (systemd's ProtectKernelTunables=yes)
// costs nothing then. Where wgcp must write and cannot, it says why (an Error), never
// pretends it did.
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../log';
import type { ServerRecord } from '../store/servers';

const CONF = '/proc/sys/net/ipv6/conf';

/**
 * How an interface's IPv6 is forwarded: `router-wide` (all.forwarding=1), `per-interface`
 * (its force_forwarding=1), `off` (force_forwarding=0: wgcp turns it on), `unsupported` (a
 * kernel before 6.17 with all.forwarding=0: no per-interface switch exists), `no-ipv6`.
 */
export type Ipv6ForwardingState = 'router-wide' | 'per-interface' | 'off' | 'unsupported' | 'no-ipv6';

const read = (file: string): string | null => {
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch {
    return null;
  }
};

export function ipv6ForwardingState(ifname: string): Ipv6ForwardingState {
  const dir = path.join(CONF, ifname);
  if (!fs.existsSync(dir)) return 'no-ipv6';
  if (read(path.join(CONF, 'all', 'forwarding')) === '1') return 'router-wide';
  const force = read(path.join(dir, 'force_forwarding'));
  if (force === null) return 'unsupported';
  return force === '1' ? 'per-interface' : 'off';
}

function write(file: string, value: string): void {
  try {
    fs.writeFileSync(file, value);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    const key = path.relative('/proc/sys', file).split(path.sep).join('.');
    const why = e.code === 'EROFS'
      ? '/proc/sys is read-only here (under systemd: ProtectKernelTunables=yes); the package\'s sysctl settings must turn it on'
      : e.message;
    throw new Error(`cannot set ${key}=${value}: ${why}`);
  }
}

/**
 * Turns IPv6 forwarding on for `ifname` where it is off and the kernel has a per-interface
 * switch; writes nothing where it is on already. Throws, saying why, when the write fails.
 */
export function enableIpv6Forwarding(ifname: string): Ipv6ForwardingState {
  const state = ipv6ForwardingState(ifname);
  if (state !== 'off') return state;
  const dir = path.join(CONF, ifname);
  write(path.join(dir, 'force_forwarding'), '1');
  if (read(path.join(dir, 'forwarding')) !== '1') write(path.join(dir, 'forwarding'), '1');
  const now = ipv6ForwardingState(ifname);
  if (now === 'off') throw new Error(`net.ipv6.conf.${ifname}.force_forwarding was written but reads 0`);
  return now;
}

/** Forward mode routes its peers' IPv6 too: forwarding on for its interface, said in the log. Standalone touches nothing. */
export function forwardIpv6(server: Pick<ServerRecord, 'mode' | 'address6' | 'interface'>, log: Logger): void {
  if (server.mode !== 'forward' || server.address6 === null) return;
  let how: Ipv6ForwardingState;
  try {
    how = enableIpv6Forwarding(server.interface);
  } catch (err) {
    // The tunnel works for IPv4 meanwhile; the reconciler retries with back-off and shows it in /healthz.
    log.warn('IPv6 from this tunnel is not forwarded', { interface: server.interface, reason: err instanceof Error ? err.message : String(err) });
    return;
  }
  if (how === 'per-interface') log.info('IPv6 forwarding on for the interface', { interface: server.interface });
  else if (how === 'router-wide') log.info('IPv6 forwarding is on router-wide (net.ipv6.conf.all.forwarding=1)', { interface: server.interface });
  else if (how === 'unsupported') {
    log.warn('IPv6 from this tunnel is not forwarded: the kernel has no per-interface force_forwarding and net.ipv6.conf.all.forwarding is 0 (wgcp does not turn IPv6 routing on for the whole router)', { interface: server.interface });
  }
}
