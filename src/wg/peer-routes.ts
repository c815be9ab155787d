// The routes of the networks behind peers: each prefix through its server's interface, where
// WireGuard's AllowedIPs then picks the peer. A route follows the peer's row, not whether it is
// on: a disabled peer's networks stay routed into the tunnel (and are dropped there), never
// leaked to the default route. The interface's removal takes its routes with it.
import { run } from '../exec/command';
import { checkIfname } from './link';

const family = (net: string) => (net.includes(':') ? '-6' : '-4');

/** `ip route replace` for each network: idempotent, so start-up and a repeat cost nothing more. */
export async function addRoutes(ifname: string, networks: readonly string[]): Promise<void> {
  checkIfname(ifname);
  for (const net of networks) await run('ip', [family(net), 'route', 'replace', net, 'dev', ifname]);
}

/** Removes each network's route through the interface; one already gone is no error. */
export async function removeRoutes(ifname: string, networks: readonly string[]): Promise<void> {
  checkIfname(ifname);
  for (const net of networks) {
    try { await run('ip', [family(net), 'route', 'del', net, 'dev', ifname]); } catch { /* gone already: the wanted state */ }
  }
}
