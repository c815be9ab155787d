// Router ports a test may use for port forwards: ones no socket of this machine serves now
// (the daemon refuses a forward on a served port), so a suite does not fail beside another
// wgcpd or any other service. Drawn below the ephemeral range, from a random start.
import { portHeld } from '../../src/kernel/listening-ports';

/** `count` distinct ports, in ascending order, that no TCP or UDP socket serves. */
export function unservedPorts(count: number): number[] {
  const out: number[] = [];
  const start = 20_000 + Math.floor(Math.random() * 5_000);
  for (let port = start; out.length < count && port < 32_000; port++) {
    if (!portHeld('tcp', port) && !portHeld('udp', port)) out.push(port);
  }
  if (out.length < count) throw new Error('no unserved ports left below 32000');
  return out;
}
