// The incremental batch between two policies (or two slices of one): element deletes, then
// adds, for one `nft -f -` call that applies all of it or none.
import { SET_NAMES, type PolicyElements } from './elements';
import { TABLE } from './render';

export interface ElementChanges {
  deletes: string[];
  adds: string[];
}

function setLines(name: string, before: Set<string>, after: Set<string>, out: ElementChanges): void {
  const gone = [...before].filter((e) => !after.has(e));
  const come = [...after].filter((e) => !before.has(e));
  if (gone.length) out.deletes.push(`delete element ${TABLE} ${name} { ${gone.join(', ')} }`);
  if (come.length) out.adds.push(`add element ${TABLE} ${name} { ${come.join(', ')} }`);
}

function mapLines(name: string, before: Map<string, string>, after: Map<string, string>, out: ElementChanges): void {
  const gone = [...before.keys()].filter((k) => after.get(k) !== before.get(k));
  const come = [...after].filter(([k, v]) => before.get(k) !== v);
  if (gone.length) out.deletes.push(`delete element ${TABLE} ${name} { ${gone.join(', ')} }`);
  if (come.length) out.adds.push(`add element ${TABLE} ${name} { ${come.map(([k, v]) => `${k} : ${v}`).join(', ')} }`);
}

/** The batch text that turns `before` into `after`; empty when they hold the same elements. */
export function diff(before: PolicyElements, after: PolicyElements): string {
  const out: ElementChanges = { deletes: [], adds: [] };
  setLines(SET_NAMES.pairs, before.pairs, after.pairs, out);
  setLines(SET_NAMES.internet, before.internet, after.internet, out);
  mapLines(SET_NAMES.forwards, before.forwards, after.forwards, out);
  setLines(SET_NAMES.serverAddrs, before.serverAddrs, after.serverAddrs, out);
  setLines(SET_NAMES.tunnels, before.tunnels, after.tunnels, out);
  setLines(SET_NAMES.standalone, before.standalone, after.standalone, out);
  setLines(SET_NAMES.wan, before.wan, after.wan, out);
  setLines(SET_NAMES.pairs6, before.pairs6, after.pairs6, out);
  setLines(SET_NAMES.internet6, before.internet6, after.internet6, out);
  mapLines(SET_NAMES.forwards6, before.forwards6, after.forwards6, out);
  setLines(SET_NAMES.serverAddrs6, before.serverAddrs6, after.serverAddrs6, out);
  for (const k of ['lanAll', 'lanAccess', 'reachLan', 'reachFrom', 'routerNets', 'lanAll6', 'lanAccess6', 'reachLan6', 'reachFrom6', 'routerNets6',
    'pairsNets', 'internetNets', 'lanAllNets', 'reachLanNets', 'pairsNets6', 'internetNets6', 'lanAllNets6', 'reachLanNets6'] as const) {
    setLines(SET_NAMES[k], before[k], after[k], out);
  }
  for (const k of ['siteLinks', 'siteReachLan', 'siteReach', 'siteReach6'] as const) setLines(SET_NAMES[k], before[k], after[k], out);
  const lines = [...out.deletes, ...out.adds];
  return lines.length ? lines.join('\n') + '\n' : '';
}
