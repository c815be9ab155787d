// The comparers: each reads one kind of kernel state of wgcp's (its interfaces' peers, its
// links, its table, IPv6 forwarding on its interfaces) and finds what differs from what wgcp
// holds. Nothing outside wgcp's own links and the `inet wgcp` table is read or touched.
// Shaping (tc) plugs in as one more comparer in COMPARERS.
import fs from 'node:fs';
import path from 'node:path';
import { run } from './command';
import { dumpInterface } from '../wg/link';
import { linkInfo } from '../wg/link-owner';
import { enableIpv6Forwarding } from '../wg/ipv6-forwarding';
import type { PeerOp } from '../wg/uapi-conf';
import { peerDrift, peerDriftCounts, peerRepairOps, wantedPeers } from './reconcile-peers';
import { nftDrift, parseTable } from './reconcile-nft';
import type { Comparer, Finding, ReconcileTarget } from './reconcile-target';
import type { ServerModel } from './model';

const picked = (t: ReconcileTarget, servers: ReadonlySet<number> | null): ServerModel[] => t.upServers().filter((m) => !servers || servers.has(m.server.id));

async function runOps(ops: PeerOp[]): Promise<void> {
  for (const op of ops) await run('wg', op.args, { secret: op.secret });
}

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
      } catch {
        continue; // a link that is gone is the link comparer's
      }
      const drift = peerDrift(dump, wantedPeers(m.peers.values()));
      if (!drift) continue;
      const counts = peerDriftCounts(drift);
      const ops = peerRepairOps(ifname, drift);
      out.push({
        kind: 'peer', serverId: m.server.id, interface: ifname, counts, items: ops.length,
        summary: `${ifname}: ${drift.missing.length} peers missing, ${drift.wrong.length} with other keys or allowed IPs, ${drift.keepalive.length} with a keepalive, ${drift.extra.length} not wgcp's`,
        repair: () => runOps(ops),
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

/** Each server's interface: there, wgcp's, and up. Read from /sys: no tool runs when nothing drifted. */
export const linkComparer: Comparer = {
  kind: 'link',
  async inspect(t, servers) {
    const out: Finding[] = [];
    for (const m of picked(t, servers)) {
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
      }
    }
    return out;
  },
};

const readSysctl = (file: string): string | null => {
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch {
    return null;
  }
};

/** IPv6 forwarding on forward-mode interfaces with an IPv6 address, where wgcp turns it on. */
export const ipv6Comparer: Comparer = {
  kind: 'ipv6',
  async inspect(t, servers) {
    const out: Finding[] = [];
    for (const m of picked(t, servers)) {
      const { server } = m;
      if (server.mode !== 'forward' || server.address6 === null) continue;
      const dir = path.join('/proc/sys/net/ipv6/conf', server.interface);
      if (!fs.existsSync(dir)) continue;
      const force = readSysctl(path.join(dir, 'force_forwarding'));
      if (readSysctl(path.join(dir, 'forwarding')) === '1' && (force === null || force === '1')) continue;
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
    const state = json === null ? null : parseTable(json);
    const drift = nftDrift(state, t.wantedTable(), t.chainReference);
    // The chains as wgcp loaded them are learned once, from a table that has wgcp's shape.
    if (state && (!drift || !drift.rebuild) && !t.chainReference) t.chainReference = state.chains;
    if (!drift) return [];
    if (drift.rebuild) {
      return [{
        kind: 'nft', serverId: null, interface: null, counts: { tableReloads: 1 }, items: 1, summary: `inet wgcp: ${drift.why}`,
        repair: async () => {
          t.chainReference = null;
          await t.reloadTable();
          // The chains as just loaded, so that a rule changed by hand later is seen.
          const loaded = await readTable();
          t.chainReference = loaded === null ? null : parseTable(loaded)?.chains ?? null;
        },
      }];
    }
    return [{
      kind: 'nft', serverId: null, interface: null, counts: { elementsMissing: drift.added, elementsExtra: drift.removed }, items: drift.added + drift.removed,
      summary: `inet wgcp: ${drift.added} elements missing, ${drift.removed} not wgcp's`, repair: () => t.applyElements(drift.batch),
    }];
  },
};

/** Every comparer, in the order a full pass runs them: links before what lives on them. */
export const COMPARERS: readonly Comparer[] = [linkComparer, peerComparer, ipv6Comparer, nftComparer];
