// Drift of a server's shaping: the HTB classes the shaper holds against what `tc class show`
// lists on the tunnel and its IFB. Pure, for the reconciler: it reads the two listings, asks
// this, and repairs class by class (repairTcLines); a device whose classes are all gone (its
// root qdisc went with them) has its shaping made again whole (Shaper.install). The maps that
// send each address to its class are compared in compare-elements.ts.
import { hasElementDrift, type ElementDrift } from './compare-elements';
import { PARK_MBPS, classLines, classIdOf, type ShapedPeer, type ShapingNames } from './render';

/** A class a server should hold; rateBit null: any rate (a parked direction, a spare slot). */
export interface ExpectedClass { dev: string; classid: string; rateBit: number | null }
export interface ClassDrift { missing: ExpectedClass[]; wrongRate: (ExpectedClass & { rateBit: number; shownBit: number })[]; extra: { dev: string; classid: string }[] }
/** A server's shaping as the reconciler compares it: its classes and its map elements. */
export interface ShapingDrift extends ClassDrift { elements: ElementDrift }

/** The classes a server needs: a slot (a class on the tunnel and one on its IFB) per limited peer and per spare. */
export function expectedClasses(n: ShapingNames, peers: Iterable<ShapedPeer>, spares: Iterable<number> = []): ExpectedClass[] {
  const out: ExpectedClass[] = [];
  const bit = (mbps: number | null) => (mbps === null ? null : Math.round(mbps * 1e6));
  for (const p of peers) {
    out.push({ dev: n.ifname, classid: classIdOf(p.minor), rateBit: bit(p.down) }, { dev: n.ifb, classid: classIdOf(p.minor), rateBit: bit(p.up) });
  }
  for (const m of spares) out.push({ dev: n.ifname, classid: classIdOf(m), rateBit: null }, { dev: n.ifb, classid: classIdOf(m), rateBit: null });
  return out;
}

const UNITS: Record<string, number> = { bit: 1, kbit: 1e3, mbit: 1e6, gbit: 1e9, tbit: 1e12 };

/** HTB classes of a `tc class show dev X` listing (iproute2 prints HTB's as text even with -j): classid -> rate in bit/s. */
export function parseHtbClasses(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const m of text.matchAll(/^class htb (\S+) .*?\brate ([\d.]+)([KMGT]?bit)\b/gm)) {
    out.set(m[1], Number(m[2]) * UNITS[m[3].toLowerCase()]);
  }
  return out;
}

/** What differs: a class missing, one at another rate (beyond tc's rounding of what it prints), one no peer needs. */
export function shapingDrift(expected: ExpectedClass[], shown: Record<string, string>): ClassDrift {
  const drift: ClassDrift = { missing: [], wrongRate: [], extra: [] };
  const listed = new Map(Object.entries(shown).map(([dev, text]) => [dev, parseHtbClasses(text)]));
  const wanted = new Set(expected.map((e) => `${e.dev} ${e.classid}`));
  for (const e of expected) {
    const shownBit = listed.get(e.dev)?.get(e.classid);
    if (shownBit === undefined) drift.missing.push(e);
    else if (e.rateBit !== null && Math.abs(shownBit - e.rateBit) > e.rateBit * 0.01) drift.wrongRate.push({ ...e, rateBit: e.rateBit, shownBit });
  }
  for (const [dev, classes] of listed) for (const classid of classes.keys()) if (!wanted.has(`${dev} ${classid}`)) drift.extra.push({ dev, classid });
  return drift;
}

export const hasDrift = (d: ClassDrift & { elements?: ElementDrift }): boolean =>
  d.missing.length + d.wrongRate.length + d.extra.length > 0 || (d.elements !== undefined && hasElementDrift(d.elements));

/** A device whose every wanted class is gone (its qdisc deleted, say): classes alone cannot be put back there. */
export function needsInstall(expected: ExpectedClass[], drift: ClassDrift): boolean {
  const missing = new Map<string, number>();
  for (const m of drift.missing) missing.set(m.dev, (missing.get(m.dev) ?? 0) + 1);
  const wanted = new Map<string, number>();
  for (const e of expected) wanted.set(e.dev, (wanted.get(e.dev) ?? 0) + 1);
  return [...missing].some(([dev, n]) => n === wanted.get(dev));
}

const minorOf = (classid: string): number => Number.parseInt(classid.split(':')[1], 16);

/** The tc lines that put k drifted classes right: O(k), never the whole server. */
export function repairTcLines(drift: ClassDrift): string[] {
  const lines: string[] = [];
  for (const c of [...drift.missing, ...drift.wrongRate]) lines.push(...classLines(c.dev, minorOf(c.classid), c.rateBit === null ? PARK_MBPS : c.rateBit / 1e6));
  for (const x of drift.extra) lines.push(`class del dev ${x.dev} classid ${x.classid}`);
  return lines;
}
