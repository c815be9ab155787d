// `wgcp check`: compares the kernel with the database, as the daemon's reconciler does,
// and prints what differs without repairing anything; exit 1 when something does. It reads
// the kernel itself (wgcp's links, their peers, `inet wgcp`, IPv6 forwarding, bandwidth
// limits), so it works with the daemon stopped too; the WAN set is the one wgcpd would hold
// (WGCP_WAN_INTERFACES, else the interfaces of the default routes).
import type { Store } from '../store/store';
import { run } from '../kernel/command';
import { checkLimits, limitsCheckFails, limitsCheckSummary } from '../shaping/check-limits';
import { parseShapingTable } from '../shaping/compare-elements';
import { namesOf, SHAPING_TABLE } from '../shaping/render';
import { linkInfo } from '../wg/link-owner';
import { COMPARERS } from '../kernel/reconcile-comparers';
import type { ReconcileTarget } from '../kernel/reconcile-target';
import { ServerModel } from '../kernel/model';
import { detectWanInterfaces } from '../kernel/wan';
import { fullPolicy } from '../nft/policy';
import { ifnameElement } from '../nft/elements';
import { renderTable } from './table';

const readOnly = async (): Promise<void> => { throw new Error('wgcp check repairs nothing'); };

/** What the database says the kernel holds, seen through the comparers' target (nothing it may change). */
function databaseTarget(store: Store): ReconcileTarget {
  const models = store.servers.list().map((server) => ServerModel.of({ server, peers: store.peers.kernelPeersOf(server.id), forwards: store.forwards.kernelForwardsOfServer(server.id) }));
  const wan = process.env.WGCP_WAN_INTERFACES?.split(',').map((s) => s.trim()).filter(Boolean) ?? detectWanInterfaces();
  return {
    // A link that is gone is reported whatever runs it.
    driver: 'kernel',
    upServers: () => models,
    wantedTable: () => {
      const policy = fullPolicy(models);
      for (const w of wan) policy.wan.add(ifnameElement(w));
      return policy;
    },
    chainReference: null,
    // The class numbers of bandwidth limits are the running daemon's own: limits are followed
    // through the kernel instead (shapingFindings).
    shapingDrift: async () => null,
    applyElements: readOnly, reloadTable: readOnly, reviveLink: readOnly, configureLink: readOnly, repairShaping: readOnly,
  };
}

/** Each server's bandwidth limits followed through `netdev wgcp` and its classes: one line a server that differs. */
async function shapingFindings(store: Store): Promise<string[]> {
  const servers = store.servers.list();
  const table = parseShapingTable(await run('nft', ['-j', 'list', 'table', SHAPING_TABLE]).catch(() => ''));
  const classes = (dev: string) => (linkInfo(dev) ? run('tc', ['class', 'show', 'dev', dev]).catch(() => '') : Promise.resolve(''));
  const out: string[] = [];
  for (const server of servers) {
    const n = namesOf(server.interface);
    const peers = store.peers.kernelPeersOf(server.id).map((p) => ({ ip: p.ip, ip6: p.ip6, down: p.downloadLimitMbps ?? null, up: p.uploadLimitMbps ?? null }));
    const c = checkLimits(n, peers, table, await classes(n.ifname), await classes(n.ifb));
    if (limitsCheckFails(c)) out.push(limitsCheckSummary(server.interface, c));
  }
  return out;
}

/** Prints each difference (no keys), as a table or with `json` as JSON; resolves to the exit code: 0 none, 1 some. */
export async function runCheckCommand(store: Store, out: (s: string) => void, json = false): Promise<number> {
  const target = databaseTarget(store);
  const differences: { kind: string; summary: string }[] = [];
  for (const c of COMPARERS) {
    for (const f of await c.inspect(target, null)) differences.push({ kind: f.kind, summary: f.summary });
  }
  for (const summary of await shapingFindings(store)) differences.push({ kind: 'shaping', summary });
  const found = differences.length;
  if (json) out(JSON.stringify({ same: found === 0, differences }, null, 2) + '\n');
  else {
    if (found) out(renderTable(['KIND', 'DIFFERENCE'], differences.map((d) => [d.kind, d.summary])));
    out(found === 0 ? 'the kernel holds what the database says\n' : `${found} difference${found === 1 ? '' : 's'}: wgcpd repairs them (docs/kernel.md, "Drift")\n`);
  }
  return found === 0 ? 0 : 1;
}
