// The `inet wgcp` table as `nft -j list table inet wgcp` shows it, against the policy wgcp
// holds. Elements are compared one by one and a difference is put right with one batch of
// element adds and deletes (O(differences)); a table that is gone or whose sets or chains
// differ (a flush, a hand-made rule) is loaded again whole, as start-up does. Pure.
import { diff } from '../nft/diff';
import { emptyElements, policyElement, SET_NAMES, type PolicyElements } from '../nft/elements';
import { renderDefinition } from '../nft/render';

/** What the table holds: its elements, and its sets' kinds and chains' rules for the structure. */
export interface TableState {
  elements: PolicyElements;
  /** set or map name -> 'set' | 'map'. */
  sets: Map<string, 'set' | 'map'>;
  /** chain name -> its hook line and each rule's expression, without handles. */
  chains: Map<string, { head: string; rules: string[] }>;
  /** Elements the parser could not read (not wgcp's shape): the table is loaded again. */
  unreadable: number;
}

export interface NftDrift {
  /** The table is missing, or its sets, chains or rules are not wgcp's: load it again whole. */
  rebuild: boolean;
  why: string | null;
  /** The element batch (empty when only a rebuild helps or nothing differs). */
  batch: string;
  added: number;
  removed: number;
}

type Json = Record<string, unknown>;
const FIELD_OF: Record<string, keyof PolicyElements> = Object.fromEntries(Object.entries(SET_NAMES).map(([k, v]) => [v, k as keyof PolicyElements]));

function part(v: unknown, type: string): string | null {
  if (typeof v === 'number') return String(v);
  // An interval set's prefix (`10.90.0.0/24`), as wgcp writes it (nft/elements.ts prefixElement).
  const prefix = (v as { prefix?: { addr?: unknown; len?: unknown } } | null)?.prefix;
  if (prefix && typeof prefix.addr === 'string' && typeof prefix.len === 'number') return `${prefix.addr}/${prefix.len}`;
  if (typeof v !== 'string') return null;
  return type === 'ifname' ? `"${v}"` : v;
}

function elementText(v: unknown, types: string[]): string | null {
  const concat = (v as { concat?: unknown[] } | null)?.concat;
  const parts = Array.isArray(concat) ? concat : [v];
  if (parts.length !== types.length) return null;
  const out: string[] = [];
  for (let i = 0; i < parts.length; i++) {
    const p = part(parts[i], types[i]);
    if (p === null) return null;
    out.push(p);
  }
  return out.join(' . ');
}

const typesOf = (t: unknown): string[] => (Array.isArray(t) ? t.map(String) : [String(t)]);

/** The table from `nft -j list table inet wgcp` output; null when there is no such table. */
export function parseTable(json: string): TableState | null {
  const items = (JSON.parse(json) as { nftables?: Json[] }).nftables ?? [];
  if (!items.some((i) => (i.table as Json | undefined)?.name === 'wgcp')) return null;
  const state: TableState = { elements: emptyElements(), sets: new Map(), chains: new Map(), unreadable: 0 };
  for (const item of items) {
    const set = (item.set ?? item.map) as Json | undefined;
    if (set) {
      const name = String(set.name);
      const isMap = item.map !== undefined;
      state.sets.set(name, isMap ? 'map' : 'set');
      const field = FIELD_OF[name];
      const types = typesOf(set.type);
      const valueTypes = isMap ? String(set.map).split(' . ') : [];
      for (const e of (set.elem as unknown[] | undefined) ?? []) {
        const text = elementText(isMap ? (e as unknown[])[0] : e, types);
        // A set of one prefix holds "any address" beside it (nft/elements.ts PAIRED_FIELD).
        const key = text === null || !field ? text : policyElement(field, text);
        const value = isMap ? elementText((e as unknown[])[1], valueTypes) : null;
        if (!field || key === null || (isMap && value === null)) { state.unreadable++; continue; }
        const into = state.elements[field];
        if (into instanceof Map) into.set(key, value!);
        else into.add(key);
      }
      continue;
    }
    const chain = item.chain as Json | undefined;
    if (chain) {
      state.chains.set(String(chain.name), { head: `${chain.type ?? ''} ${chain.hook ?? ''} ${chain.prio ?? ''} ${chain.policy ?? ''}`, rules: state.chains.get(String(chain.name))?.rules ?? [] });
      continue;
    }
    const rule = item.rule as Json | undefined;
    if (rule) {
      const c = state.chains.get(String(rule.chain)) ?? { head: '?', rules: [] };
      c.rules.push(JSON.stringify(rule.expr));
      state.chains.set(String(rule.chain), c);
    }
  }
  return state;
}

/** The sets and maps, and each chain's rule count, that wgcp's definition has. */
export function expectedStructure(): { sets: Map<string, 'set' | 'map'>; rules: Map<string, number> } {
  const text = renderDefinition(emptyElements());
  const sets = new Map<string, 'set' | 'map'>();
  const rules = new Map<string, number>();
  let chain: string | null = null;
  for (const line of text.split('\n').map((l) => l.trim())) {
    const block = /^(set|map|chain) (\S+) \{$/.exec(line);
    if (block) {
      if (block[1] === 'chain') { chain = block[2]; rules.set(chain, 0); } else sets.set(block[2], block[1] as 'set' | 'map');
      continue;
    }
    if (line === '}') { chain = null; continue; }
    if (chain && line !== '' && !line.startsWith('type ')) rules.set(chain, rules.get(chain)! + 1);
  }
  return { sets, rules };
}

const STRUCTURE = expectedStructure();

/**
 * Why the table's sets and chains are not wgcp's, or null. `reference` is the chains as
 * wgcp loads them (read back once after start-up): a rule changed by hand is seen too.
 */
export function structureDrift(state: TableState, reference: Map<string, { head: string; rules: string[] }> | null): string | null {
  for (const [name, kind] of STRUCTURE.sets) if (state.sets.get(name) !== kind) return `${kind} ${name} is missing`;
  for (const name of state.sets.keys()) if (!STRUCTURE.sets.has(name)) return `set ${name} is not wgcp's`;
  for (const [name, count] of STRUCTURE.rules) {
    const c = state.chains.get(name);
    if (!c) return `chain ${name} is missing`;
    if (c.rules.length !== count) return `chain ${name} holds ${c.rules.length} rules, not ${count}`;
    const ref = reference?.get(name);
    if (ref && (ref.head !== c.head || ref.rules.some((r, i) => r !== c.rules[i]))) return `chain ${name} was changed`;
  }
  for (const name of state.chains.keys()) if (!STRUCTURE.rules.has(name)) return `chain ${name} is not wgcp's`;
  if (state.unreadable > 0) return `${state.unreadable} elements are not wgcp's shape`;
  return null;
}

function countBatch(batch: string): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const line of batch.split('\n')) {
    const inner = /\{ (.*) \}$/.exec(line)?.[1];
    if (!inner) continue;
    const n = inner.split(', ').length;
    if (line.startsWith('add ')) added += n; else removed += n;
  }
  return { added, removed };
}

/** The table read (null: gone) against the policy wgcp holds; null when nothing differs. */
export function nftDrift(state: TableState | null, wanted: PolicyElements, reference: Map<string, { head: string; rules: string[] }> | null): NftDrift | null {
  if (!state) return { rebuild: true, why: 'table inet wgcp is gone', batch: '', added: 0, removed: 0 };
  const why = structureDrift(state, reference);
  if (why) return { rebuild: true, why, batch: '', added: 0, removed: 0 };
  const batch = diff(state.elements, wanted);
  if (batch === '') return null;
  return { rebuild: false, why: null, batch, ...countBatch(batch) };
}
