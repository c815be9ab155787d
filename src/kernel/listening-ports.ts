// Ports the router itself serves (SSH, DNS, the web UI, wgcpd's own listeners), read from
// /proc/net of this network namespace: a port forward on one would hide it from the WAN.
import fs from 'node:fs';

const TCP_LISTEN = '0A';

/** Local ports of the sockets in a /proc/net/{tcp,tcp6,udp,udp6} text that serve: TCP listening, UDP bound and unconnected. */
export function servingPorts(text: string, proto: 'tcp' | 'udp'): Set<number> {
  const out = new Set<number>();
  for (const line of text.split('\n').slice(1)) {
    const f = line.trim().split(/\s+/);
    if (f.length < 4) continue;
    const local = f[1].split(':');
    const remote = f[2].split(':');
    const serving = proto === 'tcp' ? f[3] === TCP_LISTEN : remote[1] === '0000';
    if (serving) out.add(parseInt(local[1], 16));
  }
  return out;
}

function readOr(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

/** The ephemeral range: UDP sockets there are clients' (DNS lookups), not services. */
function ephemeralRange(): [number, number] {
  const [lo, hi] = readOr('/proc/sys/net/ipv4/ip_local_port_range').trim().split(/\s+/).map(Number);
  return Number.isInteger(lo) && Number.isInteger(hi) ? [lo, hi] : [32768, 60999];
}

/** True when a serving socket of this namespace (IPv4 or IPv6) holds this port, whatever the range. */
export function portHeld(proto: 'tcp' | 'udp', port: number): boolean {
  return [`/proc/net/${proto}`, `/proc/net/${proto}6`].some((f) => servingPorts(readOr(f), proto).has(port));
}

/** True when a service of the router takes this port for this protocol. */
export function routerServes(proto: 'tcp' | 'udp', port: number): boolean {
  if (!portHeld(proto, port)) return false;
  if (proto === 'tcp') return true;
  const [lo, hi] = ephemeralRange();
  return port < lo || port > hi;
}
