// `wgcp check`'s look at bandwidth limits, made from the database and the kernel alone: which
// class a limited peer's address is sent to is the running daemon's choice (its minors), so
// each limit is followed through the kernel instead: the address in the direction's map,
// the class it names on the device that direction is shaped on, and that class's rate. Pure.
import { parseHtbClasses } from './compare';
import { canonicalAddress, shapingStructureWhole, type ShownShaping } from './compare-elements';
import { DIRS, mapOf, peerElements, type ShapedPeer, type ShapingNames } from './render';

/** A peer's limits as the database holds them (Mbit/s, null: none). */
export type LimitedPeer = Pick<ShapedPeer, 'ip' | 'ip6' | 'down' | 'up'>;

export interface LimitsCheck {
  /** The server's maps or chains are not there, or not as made, while a peer has a limit. */
  notSetUp: boolean;
  /** Limits (a peer's direction and family) whose address is in no map or names a class that is not there. */
  notApplied: number;
  /** Limits whose class shapes at another rate (beyond tc's rounding of what it prints). */
  wrongRate: number;
  /** Addresses shaped in a direction their peer has no limit in. */
  extra: number;
}

export const limitsCheckFails = (c: LimitsCheck): boolean => c.notSetUp || c.notApplied + c.wrongRate + c.extra > 0;

/** `tunnel`, `ifb`: `tc class show dev X` of the server's tunnel and its IFB ('' where there is none). */
export function checkLimits(n: ShapingNames, peers: Iterable<LimitedPeer>, shown: ShownShaping, tunnel: string, ifb: string): LimitsCheck {
  const out: LimitsCheck = { notSetUp: false, notApplied: 0, wrongRate: 0, extra: 0 };
  const classes = { d: parseHtbClasses(tunnel), u: parseHtbClasses(ifb) };
  const wanted = new Map<string, Set<string>>(DIRS.map((d) => [mapOf(n, d), new Set()]));
  let limited = false;
  for (const p of peers) {
    for (const { dir, addr } of peerElements(p)) {
      limited = true;
      const mbps = dir[0] === 'd' ? p.down! : p.up!;
      const key = canonicalAddress(addr) ?? addr;
      wanted.get(mapOf(n, dir))!.add(key);
      const classid = shown.maps.get(mapOf(n, dir))?.elements.get(key);
      const rate = classid === undefined ? undefined : classes[dir[0] as 'd' | 'u'].get(classid);
      if (rate === undefined) out.notApplied++;
      else if (Math.abs(rate - mbps * 1e6) > mbps * 1e6 * 0.01) out.wrongRate++;
    }
  }
  if (limited && !shapingStructureWhole(n, shown)) out.notSetUp = true;
  for (const [name, want] of wanted) for (const addr of shown.maps.get(name)?.elements.keys() ?? []) if (!want.has(addr)) out.extra++;
  return out;
}

/** The check in words, for `wgcp check` (addresses and keys are never printed). */
export function limitsCheckSummary(ifname: string, c: LimitsCheck): string {
  const parts: string[] = [];
  if (c.notSetUp) parts.push('the shaping maps or chains are not set up');
  if (c.notApplied) parts.push(`${c.notApplied} limit${c.notApplied === 1 ? '' : 's'} not applied`);
  if (c.wrongRate) parts.push(`${c.wrongRate} at another rate`);
  if (c.extra) parts.push(`${c.extra} address${c.extra === 1 ? '' : 'es'} shaped without a limit`);
  return `${ifname}: bandwidth limits: ${parts.join(', ')} (a peer's direction and family counts once)`;
}
