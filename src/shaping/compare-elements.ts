// Drift of a server's shaping maps in `netdev wgcp`: which address each map sends to which
// class, against what the shaper holds. An element deleted by hand leaves its peer unshaped
// with every class still in place, so the classes alone (compare.ts) cannot see it. A map or
// chain that is gone, or a chain whose rules were flushed, cannot be put right element by
// element: the server's shaping is made again whole. Pure: the caller reads
// `nft -j list table netdev wgcp` and runs the lines.
import { formatIp, parseIp } from '../net/ip-address';
import { classIdOf, DIRS, mapOf, peerElements, SHAPING_TABLE, type Dir, type ShapedPeer, type ShapingNames } from './render';

/** What `netdev wgcp` holds: each map's address -> classid, and each chain's hook and number of rules. */
export interface ShownShaping {
  maps: Map<string, { type: string; elements: Map<string, string> }>;
  chains: Map<string, { hook: string; device: string | null; rules: number }>;
}

export interface ElementDrift {
  /** A map or chain of the server is gone or not as made (its rules flushed): make the shaping again whole. */
  rebuild: boolean;
  missing: number;
  wrongClass: number;
  extra: number;
  /** The element deletes, then adds, that put the maps right (one nft batch; empty with rebuild). */
  lines: string[];
}

type Json = Record<string, unknown>;

/** An address as nft prints it (IPv6 shortest); null when it is not one. */
export function canonicalAddress(text: string): string | null {
  const ip = parseIp(text);
  return ip ? formatIp(ip) : null;
}

/** The table from `nft -j list table netdev wgcp`; an empty one when there is no such table (an empty string). */
export function parseShapingTable(json: string): ShownShaping {
  const shown: ShownShaping = { maps: new Map(), chains: new Map() };
  if (!json.trim()) return shown;
  for (const item of (JSON.parse(json) as { nftables?: Json[] }).nftables ?? []) {
    const map = item.map as Json | undefined;
    if (map && typeof map.name === 'string') {
      const elements = new Map<string, string>();
      for (const e of Array.isArray(map.elem) ? map.elem : []) {
        // An element is [key, value]; anything else is not wgcp's shape and is read as extra.
        const [k, v] = Array.isArray(e) ? e : [JSON.stringify(e), ''];
        elements.set(typeof k === 'string' ? canonicalAddress(k) ?? k : JSON.stringify(k), String(v));
      }
      shown.maps.set(map.name, { type: `${String(map.type)} : ${String(map.map)}`, elements });
    }
    const chain = item.chain as Json | undefined;
    if (chain && typeof chain.name === 'string') {
      const dev = typeof chain.dev === 'string' ? chain.dev : null;
      shown.chains.set(chain.name, { hook: String(chain.hook ?? ''), device: dev, rules: 0 });
    }
    const rule = item.rule as Json | undefined;
    const ruled = rule && typeof rule.chain === 'string' ? shown.chains.get(rule.chain) : undefined;
    if (ruled) ruled.rules++;
  }
  return shown;
}

/** The elements a server's maps should hold: map name -> address -> classid. */
export function expectedElements(n: ShapingNames, peers: Iterable<ShapedPeer>): Map<string, Map<string, string>> {
  const out = new Map<string, Map<string, string>>(DIRS.map((d) => [mapOf(n, d), new Map()]));
  for (const p of peers) for (const { dir, addr } of peerElements(p)) out.get(mapOf(n, dir))!.set(canonicalAddress(addr) ?? addr, classIdOf(p.minor));
  return out;
}

const mapTypeOf = (d: Dir): string => `${d.endsWith('4') ? 'ipv4_addr' : 'ipv6_addr'} : classid`;

/** Whether a server's two chains (each on its hook, with its two rules) and its four maps (of their types) are as made. */
export function shapingStructureWhole(n: ShapingNames, shown: ShownShaping): boolean {
  for (const [c, hook] of [['out', 'egress'], ['in', 'ingress']]) {
    const chain = shown.chains.get(`${n.prefix}_${c}`);
    if (!chain || chain.hook !== hook || (chain.device !== null && chain.device !== n.ifname) || chain.rules !== 2) return false;
  }
  return DIRS.every((d) => shown.maps.get(mapOf(n, d))?.type === mapTypeOf(d));
}

/** What a server's part of the table lacks, holds wrongly or holds beyond what the shaper holds. */
export function elementDrift(n: ShapingNames, expected: Map<string, Map<string, string>>, shown: ShownShaping): ElementDrift {
  const drift: ElementDrift = { rebuild: !shapingStructureWhole(n, shown), missing: 0, wrongClass: 0, extra: 0, lines: [] };
  const adds: string[] = [];
  for (const d of DIRS) {
    const name = mapOf(n, d);
    const map = shown.maps.get(name);
    // A map gone or of another type is already a rebuild: its elements are not counted.
    if (map?.type !== mapTypeOf(d)) continue;
    const want = expected.get(name) ?? new Map<string, string>();
    for (const [addr, classid] of want) {
      const has = map.elements.get(addr);
      if (has === classid) continue;
      if (has === undefined) drift.missing++;
      else { drift.wrongClass++; drift.lines.push(`delete element ${SHAPING_TABLE} ${name} { ${addr} }`); }
      adds.push(`add element ${SHAPING_TABLE} ${name} { ${addr} : ${classid} }`);
    }
    for (const addr of map.elements.keys()) {
      if (want.has(addr)) continue;
      drift.extra++;
      // A key nft would not take back as an address cannot be named in a delete: only a rebuild clears it.
      if (canonicalAddress(addr) === null) drift.rebuild = true;
      else drift.lines.push(`delete element ${SHAPING_TABLE} ${name} { ${addr} }`);
    }
  }
  drift.lines.push(...adds);
  if (drift.rebuild) drift.lines = [];
  return drift;
}

export const hasElementDrift = (d: ElementDrift): boolean => d.rebuild || d.missing + d.wrongClass + d.extra > 0;
