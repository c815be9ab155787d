// The routes of the networks behind peers: each prefix through its server's interface, where
// WireGuard's AllowedIPs then picks the peer. A route follows the peer's row, not whether it is
// on: a disabled peer's networks stay routed into the tunnel (and are dropped there), never
// leaked to the default route. The interface's removal takes its routes with it.
// All the routes of a call go to one `ip -batch -` (one process, whatever their number): a
// process each cost the start-up of 5,000 routes 5,000 forks of the daemon, each holding its
// event loop (issue 35: 20 s of the main thread at 10,000 peers with 2,000 prefix lists).
// The family comes from each prefix itself, so IPv4 and IPv6 share the batch.
import { run } from '../exec/command';
import { checkIfname } from './link';

/** The `ip -batch` lines of one route command for each network (no process run). */
export function routeBatch(verb: 'replace' | 'del', ifname: string, networks: readonly string[]): string {
  checkIfname(ifname);
  return networks.map((net) => `route ${verb} ${net} dev ${ifname}\n`).join('');
}

/** `ip route replace` for each network: idempotent, so start-up and a repeat cost nothing more. */
export async function addRoutes(ifname: string, networks: readonly string[]): Promise<void> {
  const batch = routeBatch('replace', ifname, networks);
  if (batch !== '') await run('ip', ['-batch', '-'], { input: batch });
}

/** Removes each network's route through the interface; one already gone is no error (`-force` goes on past it). */
export async function removeRoutes(ifname: string, networks: readonly string[]): Promise<void> {
  const batch = routeBatch('del', ifname, networks);
  if (batch === '') return;
  try { await run('ip', ['-force', '-batch', '-'], { input: batch }); } catch { /* gone already: the wanted state */ }
}
