// The routes of the networks behind peers: each prefix through its server's interface, where
// WireGuard's AllowedIPs then picks the peer. A route follows the peer's row, not whether it is
// on: a disabled peer's networks stay routed into the tunnel (and are dropped there), never
// leaked to the default route. The interface's removal takes its routes with it.
import { run } from '../exec/command';
import { checkIfname } from './link';

/** A prefix as a batch line may carry it: digits, hex, dots, colons and its length only. */
function checkPrefix(net: string): string {
  if (!/^[0-9a-fA-F.:]+\/\d{1,3}$/.test(net)) throw new Error(`route: refused prefix ${JSON.stringify(net)}`);
  return net;
}

/**
 * `ip route replace` for each network, all in one `ip -batch` (one process whatever their
 * number; `ip` takes the family from each prefix): idempotent, so start-up and a repeat cost
 * nothing more. Stops at the first refusal, which it throws.
 */
export async function addRoutes(ifname: string, networks: readonly string[]): Promise<void> {
  checkIfname(ifname);
  if (networks.length === 0) return;
  await run('ip', ['-batch', '-'], { input: networks.map((n) => `route replace ${checkPrefix(n)} dev ${ifname}\n`).join('') });
}

/** Removes each network's route through the interface, in one `ip -force -batch`; one already gone is no error. */
export async function removeRoutes(ifname: string, networks: readonly string[]): Promise<void> {
  checkIfname(ifname);
  if (networks.length === 0) return;
  const input = networks.map((n) => `route del ${checkPrefix(n)} dev ${ifname}\n`).join('');
  try { await run('ip', ['-force', '-batch', '-'], { input }); } catch { /* gone already: the wanted state */ }
}
