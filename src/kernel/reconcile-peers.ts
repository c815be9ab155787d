// The peers of one interface against what wgcp holds for it: from the `wg show <if> dump`
// the usage cycle already read (no second read). Compared are the key, the preshared key,
// the allowed IPs (both families) and the keepalive (wgcp sets none); the endpoint is the
// peer's own and never compared. A peer without a preshared key (the zero key, as an import
// of wg-quick gives) is `(none)` in the dump: compared as such, never drift. Pure; a match
// costs one string a peer (its key).
import type { KernelPeer } from '../store/peers';
import type { ServerModel } from './model';
import { presharedKeyAsShown } from '../wg/keys';
import { allowedIpOf, livePeers, peerRemoveArgs, renderPeersConf, type PeerOp } from '../wg/uapi-conf';

export interface PeerDrift {
  /** Peers wgcp holds that the interface lacks. */
  missing: KernelPeer[];
  /** Peers the interface holds with another preshared key or other allowed IPs. */
  wrong: KernelPeer[];
  /** Peers held with a keepalive wgcp never set (fixed by turning it off). */
  keepalive: string[];
  /** Keys on the interface that wgcp does not hold (added by hand): removed. */
  extra: string[];
}

const TAB = 9;
const tabs = new Int32Array(8);

const sortedList = (list: string): string => list.split(',').map((s) => s.trim()).filter(Boolean).sort().join(',');

/** A peer as its `wg show dump` line should show it: its preshared key and allowed IPs as `wg` prints them. */
export interface WantedPeer { peer: KernelPeer; psk: string; allowed: string }
export type WantedPeers = Map<string, WantedPeer>;

/** The peers an interface should hold, by public key. */
export function wantedPeers(peers: Iterable<KernelPeer>): WantedPeers {
  const out: WantedPeers = new Map();
  for (const p of livePeers(peers)) out.set(p.publicKey, { peer: p, psk: presharedKeyAsShown(p.presharedKey), allowed: allowedIpOf(p) });
  return out;
}
// A cache of per-object data, not a service: it lives as long as the model's peer map.
const kept = new WeakMap<object, { revision: number; wanted: WantedPeers }>();

/**
 * The wanted peers of a server as its model holds them, kept until its peers change (built
 * anew it costs 5-10 ms at 10,000 peers, each usage cycle and each compare).
 */
export function wantedOfModel(m: Pick<ServerModel, 'peers' | 'revision'>): WantedPeers {
  const k = kept.get(m.peers);
  if (k && k.revision === m.revision) return k.wanted;
  const wanted = wantedPeers(m.peers.values());
  kept.set(m.peers, { revision: m.revision, wanted });
  return wanted;
}

function same(text: string, from: number, to: number, wanted: string): boolean {
  return to - from === wanted.length && text.startsWith(wanted, from);
}

/** What differs between a dump and the wanted peers; null when nothing does. */
export function peerDrift(dump: string, wanted: WantedPeers): PeerDrift | null {
  const drift: PeerDrift = { missing: [], wrong: [], keepalive: [], extra: [] };
  const seen = new Set<string>();
  let start = dump.indexOf('\n') + 1;
  while (start > 0 && start < dump.length) {
    let end = dump.indexOf('\n', start);
    if (end < 0) end = dump.length;
    let found = 0;
    for (let i = start; i < end && found < 8; i++) if (dump.charCodeAt(i) === TAB) tabs[found++] = i;
    if (found >= 7) {
      const key = dump.slice(start, tabs[0]);
      const w = wanted.get(key);
      if (!w) drift.extra.push(key);
      else {
        seen.add(key);
        const keepEnd = found === 8 ? tabs[7] : end;
        if (!same(dump, tabs[0] + 1, tabs[1], w.psk)) drift.wrong.push(w.peer);
        else if (!same(dump, tabs[2] + 1, tabs[3], w.allowed) && sortedList(dump.slice(tabs[2] + 1, tabs[3])) !== sortedList(w.allowed)) drift.wrong.push(w.peer);
        if (!same(dump, tabs[6] + 1, keepEnd, 'off')) drift.keepalive.push(key);
      }
    }
    start = end + 1;
  }
  if (seen.size < wanted.size) for (const [key, w] of wanted) if (!seen.has(key)) drift.missing.push(w.peer);
  return drift.missing.length + drift.wrong.length + drift.keepalive.length + drift.extra.length > 0 ? drift : null;
}

/**
 * What puts an interface right, as a batch whatever the number of drifted peers: the foreign
 * peers' removals (`wg set … peer K remove …`, no secret) and one `wg addconf` of the drifted
 * peers' sections (its preshared keys in a private file, never on a command line). A
 * `[Peer]` section of addconf replaces the peer's allowed IPs, so it is the peer as wgcp holds it.
 */
export interface PeerRepair {
  removals: PeerOp[];
  /** The `wg addconf` text; null when only removals are needed. Holds secrets. */
  conf: string | null;
}

export function peerRepair(ifname: string, drift: PeerDrift): PeerRepair {
  const removals = drift.extra.map((key) => ({ args: peerRemoveArgs(ifname, key) }));
  const peers = [...drift.missing, ...drift.wrong];
  const held = new Set(peers.map((p) => p.publicKey));
  const keepaliveOnly = drift.keepalive.filter((key) => !held.has(key));
  return { removals, conf: peers.length + keepaliveOnly.length > 0 ? renderPeersConf(peers, keepaliveOnly) : null };
}

/** Counts for the log and the event (never keys). */
export function peerDriftCounts(d: PeerDrift): Record<string, number> {
  return { peersMissing: d.missing.length, peersWrong: d.wrong.length, peersKeepalive: d.keepalive.length, peersExtra: d.extra.length };
}
