// The comparers: each reads one kind of kernel state of wgcp's (its interfaces' peers, its
// links, its table, IPv6 forwarding on its interfaces) and finds what differs from what wgcp
// holds. Nothing outside wgcp's own links and the `inet wgcp` table is read or touched.
import fs from 'node:fs';
import path from 'node:path';
import { run } from '../exec/command';
import { dumpInterface } from '../wg/link';
import { linkInfo } from '../wg/link-owner';
import { enableIpv6Forwarding, ipv6ForwardingState } from '../wg/ipv6-forwarding';
import { peerDrift, peerDriftCounts, peerRepair, wantedOfModel } from './reconcile-peers';
import { applyPeerRepair, syncInterfacePeers } from './interface-peers';
import { nftDrift, parseTable } from './reconcile-nft';
import type { Comparer, Finding, ReconcileTarget } from './reconcile-target';
import { hasDrift } from '../shaping/compare';
import type { ServerModel } from './model';
import { routerRoutes, type RouterRoute } from '../net/router-routes';
import { addRoutes } from '../wg/peer-routes';
import { siteLinkComparer } from './reconcile-site-links';

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

const picked = (t: ReconcileTarget, servers: ReadonlySet<number> | null): ServerModel[] => t.upServers().filter((m) => !servers || servers.has(m.server.id));

/** Peers of each interface, from a fresh `wg show dump` (the usage cycle's dump is the cheap first look). */
export const peerComparer: Comparer = {
  kind: 'peer',
  async inspect(t, servers) {
    const out: Finding[] = [];
    for (const m of picked(t, servers)) {
      const ifname = m.server.interface;
      let dump: string;
      try {
        dump = await dumpInterface(ifname);
      } catch (err) {
        if (!linkInfo(ifname)) continue; // a link that is gone is the link comparer's
        // The interface is there and does not answer (wireguard-go stopped): said, not skipped, so
        // that a sync after a killed `wg` fails and is tried again. Its repair reads and syncs anew.
        out.push({
          kind: 'peer', serverId: m.server.id, interface: ifname, counts: { peersUnread: 1 }, items: 1,
          summary: `${ifname}: its peers could not be read (${err instanceof Error ? err.message : String(err)})`,
          repair: async () => { await syncInterfacePeers(m); },
        });
        continue;
      }
      const drift = peerDrift(dump, wantedOfModel(m));
      if (!drift) continue;
      const counts = peerDriftCounts(drift);
      const repair = peerRepair(ifname, drift);
      out.push({
        kind: 'peer', serverId: m.server.id, interface: ifname, counts, items: drift.missing.length + drift.wrong.length + drift.keepalive.length + drift.extra.length,
        summary: `${ifname}: ${drift.missing.length} peers missing, ${drift.wrong.length} with other keys or allowed IPs, ${drift.keepalive.length} with a keepalive, ${drift.extra.length} not wgcp's`,
        repair: () => applyPeerRepair(ifname, repair),
      });
    }
    return out;
  },
};

const SYS_NET = '/sys/class/net';
const isUp = (ifname: string): boolean => {
  try {
    return (Number.parseInt(fs.readFileSync(path.join(SYS_NET, ifname, 'flags'), 'utf8'), 16) & 1) === 1;
  } catch {
    return false;
  }
};

/** The networks behind a server's peers that have no route through its interface (`routes`: the main table's, as router-routes.ts reads them). */
function missingRoutes(m: ServerModel, routes: readonly RouterRoute[]): string[] {
  const held = new Set(routes.filter((r) => r.dev === m.server.interface).map((r) => r.prefix));
  const out: string[] = [];
  for (const p of m.peers.values()) for (const n of p.networks ?? []) if (!held.has(n)) out.push(n);
  return out;
}

function hasNetworks(m: ServerModel): boolean {
  for (const p of m.peers.values()) if ((p.networks ?? []).length > 0) return true;
  return false;
}

/**
 * Each server's interface: there, wgcp's, and up, and a route through it for each network
 * behind its peers. Read from /sys and /proc: no tool runs when nothing drifted. Only a
 * missing route is put back; a route wgcp did not make is never touched.
 */
export const linkComparer: Comparer = {
  kind: 'link',
  async inspect(t, servers) {
    const out: Finding[] = [];
    const models = picked(t, servers);
    // /proc is read only when some peer has networks (the 2-second pass reads nothing else).
    const routes = models.some(hasNetworks) ? routerRoutes(new Set()) : [];
    for (const m of models) {
      const ifname = m.server.interface;
      const link = linkInfo(ifname);
      // A link of that name that is not wgcp's is never touched: the server's retry says why.
      if (link && !link.ours) continue;
      if (!link) {
        // wireguard-go's supervisor makes its link again and restores it (reported as a repair by the plane).
        if (t.driver === 'wireguard-go') continue;
        out.push({ kind: 'link', serverId: m.server.id, interface: ifname, counts: { linksMissing: 1 }, items: 1 + m.peers.size, summary: `${ifname}: the interface is gone`, repair: () => t.reviveLink(m.server.id) });
      } else if (!isUp(ifname)) {
        out.push({ kind: 'link', serverId: m.server.id, interface: ifname, counts: { linksDown: 1 }, items: 1, summary: `${ifname}: the interface is down`, repair: () => t.configureLink(m.server.id) });
      } else {
        const missing = missingRoutes(m, routes);
        if (missing.length) {
          out.push({
            kind: 'link', serverId: m.server.id, interface: ifname, counts: { routesMissing: missing.length }, items: missing.length,
            summary: `${ifname}: ${missing.length} routes of the networks behind its peers missing (${missing.slice(0, 4).join(', ')}${missing.length > 4 ? ', …' : ''})`,
            repair: () => addRoutes(ifname, missing),
          });
        }
      }
    }
    return out;
  },
};

/**
 * IPv6 forwarding on forward-mode interfaces with an IPv6 address, where the kernel has a
 * per-interface switch and it is off. Forwarding on router-wide is taken as it is.
 */
export const ipv6Comparer: Comparer = {
  kind: 'ipv6',
  async inspect(t, servers) {
    const out: Finding[] = [];
    for (const m of picked(t, servers)) {
      const { server } = m;
      if (server.mode !== 'forward' || server.address6 === null || ipv6ForwardingState(server.interface) !== 'off') continue;
      out.push({
        kind: 'ipv6', serverId: server.id, interface: server.interface, counts: { ipv6Forwarding: 1 }, items: 1,
        summary: `${server.interface}: IPv6 forwarding is off`, repair: async () => { enableIpv6Forwarding(server.interface); },
      });
    }
    return out;
  },
};

/** Reads `inet wgcp` as JSON (0.3-0.6 s at 30,000 elements): the monitor's follow-up and the rare audit. */
export async function readTable(): Promise<string | null> {
  try {
    return await run('nft', ['-j', 'list', 'table', 'inet', 'wgcp'], { timeoutMs: 30_000 });
  } catch (err) {
    if (/No such file or directory/.test(err instanceof Error ? err.message : '')) return null;
    throw err;
  }
}

/** The whole table: its sets, chains and rules, and each element. */
export const nftComparer: Comparer = {
  kind: 'nft',
  async inspect(t) {
    const json = await readTable();
    // The parse, the policy and the compare each take a turn of their own (tens of ms at 30,000 elements).
    const state = json === null ? null : parseTable(json);
    await nextTurn();
    const wanted = t.wantedTable(state?.elements);
    await nextTurn();
    const drift = nftDrift(state, wanted, t.chainReference);
    // The chains as wgcp loaded them are learned once, at the first compare after start-up, from a table that has wgcp's shape.
    if (state && (!drift || !drift.rebuild) && !t.chainReference) t.chainReference = state.chains;
    if (!drift) return [];
    if (drift.rebuild) {
      return [{
        kind: 'nft', serverId: null, interface: null, counts: { tableReloads: 1 }, items: 1, summary: `inet wgcp: ${drift.why}`,
        // The chains wgcp loads never change while it runs: the reference learned once stays
        // right (read back after this load, it could catch a hand edit made meanwhile).
        repair: () => t.reloadTable(),
      }];
    }
    return [{
      kind: 'nft', serverId: null, interface: null, counts: { elementsMissing: drift.added, elementsExtra: drift.removed }, items: drift.added + drift.removed,
      summary: `inet wgcp: ${drift.added} elements missing, ${drift.removed} not wgcp's`, repair: () => t.applyElements(drift.batch),
    }];
  },
};

/**
 * Bandwidth limits: each server's HTB classes on its tunnel and its IFB against `tc class
 * show`, and its map elements against `netdev wgcp` (three reads a server, so only in the
 * full audit, not the 2-second pass).
 */
export const shapingComparer: Comparer = {
  kind: 'shaping',
  async inspect(t, servers) {
    const out: Finding[] = [];
    for (const m of picked(t, servers)) {
      const drift = await t.shapingDrift(m.server.id).catch(() => null);
      if (!drift || !hasDrift(drift)) continue;
      const e = drift.elements;
      const counts: Record<string, number> = {
        classesMissing: drift.missing.length, classesWrongRate: drift.wrongRate.length, classesExtra: drift.extra.length,
        elementsMissing: e.missing, elementsWrongClass: e.wrongClass, elementsExtra: e.extra, rebuilt: e.rebuild ? 1 : 0,
      };
      const elements = e.rebuild ? 'a map or chain gone or flushed (made again whole)' : `elements ${e.missing} missing, ${e.wrongClass} naming another class, ${e.extra} not wgcp's`;
      out.push({
        kind: 'shaping', serverId: m.server.id, interface: m.server.interface, counts,
        items: drift.missing.length + drift.wrongRate.length + drift.extra.length + e.missing + e.wrongClass + e.extra + (e.rebuild ? 1 : 0),
        summary: `${m.server.interface}: bandwidth limit classes ${drift.missing.length} missing, ${drift.wrongRate.length} at another rate, ${drift.extra.length} not wgcp's; ${elements}`,
        repair: () => t.repairShaping(m.server.id, drift),
      });
      await nextTurn();
    }
    return out;
  },
};

/** Every comparer, in the order a full pass runs them: links before what lives on them. */
export const COMPARERS: readonly Comparer[] = [linkComparer, peerComparer, ipv6Comparer, nftComparer, shapingComparer, siteLinkComparer];
