// The kernel compared with the database, as the daemon's reconciler does, without repairing
// anything: what `wgcp check` prints, computed in the CLI's own process (daemon stopped) or
// in the daemon for `GET /api/kernel/check` (the daemon holds CAP_NET_ADMIN, which the CLI
// run as the daemon's user, or as root on OpenWrt where node drops to that user, lacks).
// It reads the kernel itself (wgcp's links, their peers, `inet wgcp`, IPv6 forwarding,
// bandwidth limits); the WAN set is the one wgcpd holds (WGCP_WAN_INTERFACES, else the
// interfaces of the default routes).
import type { Store } from '../store/store';
import { run } from '../exec/command';
import { checkLimits, limitsCheckFails, limitsCheckSummary } from '../shaping/check-limits';
import { parseShapingTable } from '../shaping/compare-elements';
import { namesOf, SHAPING_TABLE } from '../shaping/render';
import { linkInfo } from '../wg/link-owner';
import { COMPARERS } from '../kernel/reconcile-comparers';
import type { ReconcileTarget } from '../kernel/reconcile-target';
import { ServerModel } from '../kernel/model';
import { detectWanInterfaces } from '../kernel/wan';
import { fullPolicy } from '../nft/policy';
import { ifnameElement, mergeInto } from '../nft/elements';
import { siteLinkSlice } from '../nft/site-link-policy';

/** What `wgcp check --json` prints: `same` when nothing differs; each difference without keys. */
export interface KernelCheckReport { same: boolean; differences: { kind: string; summary: string }[] }

const readOnly = async (): Promise<void> => { throw new Error('wgcp check repairs nothing'); };

/** What the database says the kernel holds, seen through the comparers' target (nothing it may change). */
function databaseTarget(store: Store, wan: string[], siteLinksUp: boolean): ReconcileTarget {
  const links = siteLinksUp ? store.siteLinks.list() : [];
  const models = store.servers.list().map((server) => ServerModel.of({ server, peers: store.peers.kernelPeersOf(server.id), forwards: store.forwards.kernelForwardsOfServer(server.id) }));
  return {
    // A link that is gone is reported whatever runs it.
    driver: 'kernel',
    upServers: () => models,
    wantedTable: (found) => {
      const policy = fullPolicy(models);
      for (const l of links) mergeInto(policy, siteLinkSlice(l));
      for (const w of wan) policy.wan.add(ifnameElement(w));
      // The router's networks are wgcpd's reading of the routes (kernel/wan-follower.ts, every
      // few seconds), not the database's: taken as found, so a route just made is no drift.
      for (const k of ['routerNets', 'routerNets6'] as const) for (const e of found?.[k] ?? []) policy[k].add(e);
      return policy;
    },
    chainReference: null,
    // The class numbers of bandwidth limits are the running daemon's own: limits are followed
    // through the kernel instead (shapingFindings).
    shapingDrift: async () => null,
    applyElements: readOnly, reloadTable: readOnly, reviveLink: readOnly, configureLink: readOnly, repairShaping: readOnly,
    siteLinks: () => links, repairSiteLink: readOnly,
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

/**
 * Every difference between the kernel and the database; `wan` is the configured WAN set (null:
 * the default routes' interfaces). `siteLinksUp` false: a standby's, whose site links are down
 * by design (docs/ha.md).
 */
export async function kernelCheckReport(store: Store, wan: string[] | null, siteLinksUp = true): Promise<KernelCheckReport> {
  const target = databaseTarget(store, wan ?? detectWanInterfaces(), siteLinksUp);
  const differences: KernelCheckReport['differences'] = [];
  for (const c of COMPARERS) {
    for (const f of await c.inspect(target, null)) differences.push({ kind: f.kind, summary: f.summary });
  }
  for (const summary of await shapingFindings(store)) differences.push({ kind: 'shaping', summary });
  return { same: differences.length === 0, differences };
}
