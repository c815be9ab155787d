// The incremental batch between two policies (or two slices of one): element deletes, then
// adds, for one `nft -f -` call that applies all of it or none.
import { nftElement, SET_NAMES, type PolicyElements } from './elements';
import { TABLE } from './render';

export interface ElementChanges {
  deletes: string[];
  adds: string[];
}

type SetField = Exclude<keyof PolicyElements, 'forwards' | 'forwards6'>;

function setLines(field: SetField, before: PolicyElements, after: PolicyElements, out: ElementChanges): void {
  const name = SET_NAMES[field];
  const gone = [...before[field]].filter((e) => !after[field].has(e)).map((e) => nftElement(field, e));
  const come = [...after[field]].filter((e) => !before[field].has(e)).map((e) => nftElement(field, e));
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
  setLines('pairs', before, after, out);
  setLines('internet', before, after, out);
  mapLines(SET_NAMES.forwards, before.forwards, after.forwards, out);
  setLines('serverAddrs', before, after, out);
  setLines('tunnels', before, after, out);
  setLines('standalone', before, after, out);
  setLines('wan', before, after, out);
  setLines('pairs6', before, after, out);
  setLines('internet6', before, after, out);
  mapLines(SET_NAMES.forwards6, before.forwards6, after.forwards6, out);
  setLines('serverAddrs6', before, after, out);
  for (const k of ['lanAll', 'lanAccess', 'reachLan', 'reachFrom', 'routerNets', 'lanAll6', 'lanAccess6', 'reachLan6', 'reachFrom6', 'routerNets6',
    'pairsNets', 'internetNets', 'lanAllNets', 'reachLanNets', 'pairsNets6', 'internetNets6', 'lanAllNets6', 'reachLanNets6'] as const) {
    setLines(k, before, after, out);
  }
  for (const k of ['siteLinks', 'siteReachLan', 'siteReach', 'siteReach6'] as const) setLines(k, before, after, out);
  const lines = [...out.deletes, ...out.adds];
  return lines.length ? lines.join('\n') + '\n' : '';
}
