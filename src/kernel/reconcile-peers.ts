// The peers of one interface against what wgcp holds for it: from the `wg show <if> dump`
// the usage cycle already read (no second read). Compared are the key, the preshared key,
// the allowed IPs (both families) and the keepalive (wgcp sets none); the endpoint is the
// peer's own and never compared. Pure; a match costs one string a peer (its key).
import type { KernelPeer } from '../store/peers';
import { allowedIpOf, livePeers, peerRemoveArgs, peerSetArgs, type PeerOp } from '../wg/uapi-conf';

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

/** The peers an interface should hold, by public key, with the allowed IPs as `wg` shows them. */
export function wantedPeers(peers: Iterable<KernelPeer>): Map<string, { peer: KernelPeer; allowed: string }> {
  const out = new Map<string, { peer: KernelPeer; allowed: string }>();
  for (const p of livePeers(peers)) out.set(p.publicKey, { peer: p, allowed: allowedIpOf(p) });
  return out;
}

function same(text: string, from: number, to: number, wanted: string): boolean {
  return to - from === wanted.length && text.startsWith(wanted, from);
}

/** What differs between a dump and the wanted peers; null when nothing does. */
export function peerDrift(dump: string, wanted: Map<string, { peer: KernelPeer; allowed: string }>): PeerDrift | null {
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
        if (!same(dump, tabs[0] + 1, tabs[1], w.peer.presharedKey)) drift.wrong.push(w.peer);
        else if (!same(dump, tabs[2] + 1, tabs[3], w.allowed) && sortedList(dump.slice(tabs[2] + 1, tabs[3])) !== sortedList(w.allowed)) drift.wrong.push(w.peer);
        if (!same(dump, tabs[6] + 1, keepEnd, 'off')) drift.keepalive.push(key);
      }
    }
    start = end + 1;
  }
  if (seen.size < wanted.size) for (const [key, w] of wanted) if (!seen.has(key)) drift.missing.push(w.peer);
  return drift.missing.length + drift.wrong.length + drift.keepalive.length + drift.extra.length > 0 ? drift : null;
}

/** The `wg set` calls that put an interface right: O(drifted peers), never a whole sync. */
export function peerRepairOps(ifname: string, drift: PeerDrift): PeerOp[] {
  const ops: PeerOp[] = drift.extra.map((key) => ({ args: peerRemoveArgs(ifname, key) }));
  for (const p of [...drift.missing, ...drift.wrong]) ops.push({ args: peerSetArgs(ifname, p), secret: p.presharedKey + '\n' });
  for (const key of drift.keepalive) ops.push({ args: ['set', ifname, 'peer', key, 'persistent-keepalive', 'off'] });
  return ops;
}

/** Counts for the log and the event (never keys). */
export function peerDriftCounts(d: PeerDrift): Record<string, number> {
  return { peersMissing: d.missing.length, peersWrong: d.wrong.length, peersKeepalive: d.keepalive.length, peersExtra: d.extra.length };
}
