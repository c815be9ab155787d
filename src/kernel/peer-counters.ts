// The usage cycle's read of `wg show <if> dump`: per public key the last handshake and the
// byte counters, nothing else, in one pass over the text. Splitting it into lines and
// fields (the full parser this replaced) made about eight strings a peer: at 10,000 peers, with the
// daemon's 1 MB young generation, that garbage cost the cycle 10 ms and more.
import type { PeerCounters } from './plane';

const TAB = 9;
const NEWLINE = 10;
// Where the first seven fields end (key, preshared key, endpoint, allowed IPs, handshake, rx, tx).
const tabs = new Int32Array(7);

function count(text: string, from: number, to: number, what: string): number {
  if (from === to) throw new Error(`wg dump: ${what} is not a number`);
  let n = 0;
  for (let i = from; i < to; i++) {
    const d = text.charCodeAt(i) - 48;
    if (d < 0 || d > 9) throw new Error(`wg dump: ${what} is not a number`);
    n = n * 10 + d;
  }
  return n;
}

/**
 * The reconciler's look at the same dump, in the same pass (issue 24): each key's preshared
 * key, allowed IPs and keepalive against the peers wgcp holds. `drifted` says only whether
 * anything differs; src/kernel/reconcile-peers.ts finds what, when it does.
 */
export interface DumpCheck {
  /** By public key: the preshared key and allowed IPs as the dump should print them. */
  wanted: ReadonlyMap<string, { psk: string; allowed: string }>;
  drifted: boolean;
  /**
   * Every peer's presence is compared each cycle; its preshared key, allowed IPs and keepalive
   * only on the lines where `line % ATTRIBUTE_SLICES === slice` (the caller turns the slice each
   * cycle): a quarter of the cost, and a changed attribute is seen within four cycles.
   */
  slice: number;
}

export const ATTRIBUTE_SLICES = 4;

const sortedList = (list: string): string => list.split(',').map((s) => s.trim()).filter(Boolean).sort().join(',');
const same = (text: string, from: number, to: number, wanted: string): boolean => to - from === wanted.length && text.startsWith(wanted, from);

/** Counters by public key; the dump holds keys, so only these leave here. */
export function countersOfDump(text: string, check?: DumpCheck): Map<string, PeerCounters> {
  const out = new Map<string, PeerCounters>();
  let start = text.indexOf('\n') + 1;
  if (start === 0 && text.trim() === '') throw new Error('wg dump: empty output');
  for (let line = 1; start > 0 && start < text.length; line++) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    if (end > start) {
      let found = 0;
      for (let i = start; i < end && found < 7; i++) if (text.charCodeAt(i) === TAB) tabs[found++] = i;
      if (found < 7) throw new Error(`wg dump: peer line ${line} has ${found + 1} fields, expected 8`);
      const key = text.slice(start, tabs[0]);
      const counters: PeerCounters = {
        latestHandshake: count(text, tabs[3] + 1, tabs[4], 'latest-handshake'),
        rxBytes: count(text, tabs[4] + 1, tabs[5], 'transfer-rx'),
        txBytes: count(text, tabs[5] + 1, tabs[6], 'transfer-tx'),
      };
      // A peer never heard from has "(none)": no string is made for it.
      if (text.charCodeAt(tabs[1] + 1) !== 40) counters.endpoint = text.slice(tabs[1] + 1, tabs[2]);
      out.set(key, counters);
      if (check && !check.drifted) {
        const w = check.wanted.get(key);
        if (!w) check.drifted = true;
        else if (line % ATTRIBUTE_SLICES !== check.slice) { /* its attributes: another cycle */ }
        else if (!same(text, tabs[0] + 1, tabs[1], w.psk) || !same(text, tabs[6] + 1, end, 'off')) check.drifted = true;
        // The same allowed IPs in another order are no drift.
        else if (!same(text, tabs[2] + 1, tabs[3], w.allowed)) check.drifted = sortedList(text.slice(tabs[2] + 1, tabs[3])) !== sortedList(w.allowed);
      }
    }
    start = text.charCodeAt(end) === NEWLINE ? end + 1 : text.length;
  }
  if (check && !check.drifted && out.size !== check.wanted.size) check.drifted = true;
  return out;
}
