// Drift of a server's shaping: the HTB classes the shaper holds against what `tc class show`
// lists on the tunnel and its IFB. Pure, for the reconciler: it reads the two listings, asks
// this, and on any drift makes the server's shaping again (Shaper.install).
import { classIdOf, type ShapedPeer, type ShapingNames } from './render';

export interface ExpectedClass { dev: string; classid: string; rateBit: number }
export interface ShapingDrift { missing: ExpectedClass[]; wrongRate: (ExpectedClass & { shownBit: number })[]; extra: { dev: string; classid: string }[] }

/** The classes a server's limited peers need: one on the tunnel per download limit, one on the IFB per upload limit. */
export function expectedClasses(n: ShapingNames, peers: Iterable<ShapedPeer>): ExpectedClass[] {
  const out: ExpectedClass[] = [];
  for (const p of peers) {
    if (p.down !== null) out.push({ dev: n.ifname, classid: classIdOf(p.minor), rateBit: Math.round(p.down * 1e6) });
    if (p.up !== null) out.push({ dev: n.ifb, classid: classIdOf(p.minor), rateBit: Math.round(p.up * 1e6) });
  }
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
export function shapingDrift(expected: ExpectedClass[], shown: Record<string, string>): ShapingDrift {
  const drift: ShapingDrift = { missing: [], wrongRate: [], extra: [] };
  const listed = new Map(Object.entries(shown).map(([dev, text]) => [dev, parseHtbClasses(text)]));
  const wanted = new Set(expected.map((e) => `${e.dev} ${e.classid}`));
  for (const e of expected) {
    const shownBit = listed.get(e.dev)?.get(e.classid);
    if (shownBit === undefined) drift.missing.push(e);
    else if (Math.abs(shownBit - e.rateBit) > e.rateBit * 0.01) drift.wrongRate.push({ ...e, shownBit });
  }
  for (const [dev, classes] of listed) for (const classid of classes.keys()) if (!wanted.has(`${dev} ${classid}`)) drift.extra.push({ dev, classid });
  return drift;
}

export const hasDrift = (d: ShapingDrift): boolean => d.missing.length + d.wrongRate.length + d.extra.length > 0;
