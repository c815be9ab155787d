// IPv6 forwarding for a forward-mode interface, per interface and not for the whole router:
// `net.ipv6.conf.all.forwarding=1` would make every interface a router (and stop SLAAC on
// the WAN). Kernels from 6.17 have `force_forwarding` per interface; older ones forward
// IPv6 only with `all.forwarding` set, which wgcp leaves to the operator and says so.
import fs from 'node:fs';
import path from 'node:path';

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

/** Turns IPv6 forwarding on for `ifname` as far as this kernel allows, and says how far that is. */
export function enableIpv6Forwarding(ifname: string): Ipv6ForwardingResult {
  const dir = path.join(CONF, ifname);
  if (!fs.existsSync(dir)) return 'no-ipv6';
  write(path.join(dir, 'forwarding'), '1');
  if (fs.existsSync(path.join(dir, 'force_forwarding')) && write(path.join(dir, 'force_forwarding'), '1')) return 'per-interface';
  return read(path.join(CONF, 'all', 'forwarding')) === '1' ? 'router-wide' : 'off';
}
