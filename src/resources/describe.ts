// A resource described once: each field its column, its JSON name, who may see it, its input
// rule and its OpenAPI schema. The generic functions here derive from a description the row
// mapping (named columns), the input parsing (every bad field named at once), the merge of an
// update, the presenter (what each role sees) and the JSON Schema; src/resources/page-types.ts
// writes the page's types from that schema. Plain typed tables rather than a schema library:
// why, in docs/development.md ("Resources").
import { FieldErrors } from '../error-registry';
import type { GuardFacts } from '../net/address-guard';

/** The three roles, least first (src/store/roles.ts re-exports them with their rules). */
export const ROLES = ['viewer', 'operator', 'admin'] as const;
export type Role = (typeof ROLES)[number];
const RANK: Record<Role, number> = { viewer: 0, operator: 1, admin: 2 };

/** An OpenAPI 3.1 (JSON Schema) fragment. */
export type JsonSchema = Record<string, unknown>;

/** A body as the API takes it. */
export type Body = Record<string, unknown>;

/** What an input rule may need beyond the body: the daemon's clock, and where outgoing connections may not go (a webhook's URL). */
export interface InputContext { now: Date; guard?: GuardFacts }

/** What the API shows in place of a secret that is set (and takes back as "keep it"). */
export const MASK = '********';

/** How a field is stored in its table's row. */
export interface Column<V> {
  name: string;
  /** SQL read in place of the column (a value kept in another table). */
  select?: string;
  /** Written by an insert only (never by an update): creation time, a counter kept elsewhere. */
  insertOnly?: boolean;
  /** Written, never read back (a secret's hash, matched by a query of its own). */
  writeOnly?: boolean;
  /** Stored form of the value; absent: as it is. */
  write?: (v: V) => unknown;
  /** Value of the stored form; absent: as it is. */
  read?: (stored: never) => V;
}

export interface Field<V> {
  /** The API's name for it; absent: the record's name. */
  json?: string;
  /** Where it is stored; a string is a plain column. Absent: not in the table's row (the table reads it otherwise). */
  column?: string | Column<V>;
  /** The least role that sees it; 'never': not shown at all (secrets). Default viewer. */
  seenBy?: Role | 'never';
  /** Reads the field from a body: undefined when left out, or throws fieldError. Absent: read-only. */
  input?: (body: Body, field: string, ctx: InputContext) => V | undefined;
  /** An input the operation merges itself (it touches other fields); plain ones merge as "left out: as it was". */
  ownMerge?: boolean;
  /** The value on create when the input leaves it out. */
  initial?: () => V;
  /** Its OpenAPI schema, description included (readOnly follows from having no input). */
  schema?: JsonSchema;
  /** The value as the API shows it, when not as it is kept (a limit kept in tenths, shown whole). */
  show?: (v: V) => unknown;
  /** Seen whole from `role` up; the roles below see `outline(value)` (a credential inside it masked). */
  whole?: { role: Role; outline: (v: V) => V };
}

/** A value the API shows that no column holds: computed from the record (and what the presenter is handed beside it, `C`). */
export interface Derived<R, C = undefined> {
  /** The field it is shown after; absent: before every field. */
  after?: keyof R & string;
  value: (r: R, context: C) => unknown;
  /** Left out when the presenter is not handed it (undefined): optional in the page's type. */
  optional?: boolean;
  seenBy?: Role;
  schema: JsonSchema;
}

export interface Resource<R, C = undefined> {
  /** The OpenAPI schema's name. */
  name: string;
  table: string;
  description?: string;
  /** Every field of the record. */
  fields: { [K in keyof R]-?: Field<R[K]> };
  derived?: Record<string, Derived<R, C>>;
  /** The JSON names a create must carry (the schema's `required`). */
  required?: string[];
}

type AnyField = Field<unknown>;
const fieldsOf = <R, C>(res: Resource<R, C>) => Object.entries(res.fields) as [keyof R & string, AnyField][];
const columnOf = (f: AnyField): Column<unknown> | undefined => (typeof f.column === 'string' ? { name: f.column } : f.column);
const jsonName = (key: string, f: AnyField): string => f.json ?? key;

/** The SELECT list of a description's columns, each aliased to its record name. */
export function selectList<R, C>(res: Resource<R, C>): string {
  return fieldsOf(res).flatMap(([k, f]) => {
    const c = columnOf(f);
    return c && !c.writeOnly ? [`${c.select ?? c.name} AS ${k}`] : [];
  }).join(', ');
}

/** `INSERT INTO table (...) VALUES (@...)` of every stored field. */
export function insertSql<R, C>(res: Resource<R, C>): string {
  const cols = fieldsOf(res).flatMap(([k, f]) => { const c = columnOf(f); return c ? [[c.name, k]] : []; });
  return `INSERT INTO ${res.table} (${cols.map((c) => c[0]).join(', ')}) VALUES (${cols.map((c) => `@${c[1]}`).join(', ')})`;
}

/** `UPDATE table SET ... WHERE id = @id` of every stored field an update writes. */
export function updateSql<R, C>(res: Resource<R, C>): string {
  const sets = fieldsOf(res).flatMap(([k, f]) => {
    const c = columnOf(f);
    return c && !c.insertOnly && k !== 'id' ? [`${c.name} = @${k}`] : [];
  });
  return `UPDATE ${res.table} SET ${sets.join(', ')} WHERE id = @id`;
}

/** The named parameters of a record for insertSql and updateSql. */
export function toColumns<R, C>(res: Resource<R, C>, r: Partial<R>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, f] of fieldsOf(res)) {
    const c = columnOf(f);
    if (!c) continue;
    const v = r[k] === undefined ? (f.initial ? f.initial() : null) : r[k];
    out[k] = c.write ? c.write(v) : v;
  }
  return out;
}

/**
 * A row read with selectList as its record; `extra` holds what the table reads elsewhere.
 * Every record is built by the same sequence of property writes, so all share one hidden
 * class (a spread of rows once gave each its own: 5 MB at 10,000 peers).
 */
export function rowToRecord<R, C>(res: Resource<R, C>, row: Record<string, unknown>, extra: Partial<R>): R {
  const out: Record<string, unknown> = {};
  for (const [k, f] of fieldsOf(res)) {
    const c = columnOf(f);
    if (!c || c.writeOnly) out[k] = extra[k];
    else out[k] = c.read ? (c.read as (v: unknown) => unknown)(row[k]) : row[k];
  }
  return out as R;
}

/** A record with the initial value of each field left out (a new row). */
export function withInitials<R, C>(res: Resource<R, C>, r: Partial<R>): R {
  const out = { ...r } as Record<string, unknown>;
  for (const [k, f] of fieldsOf(res)) if (out[k] === undefined && f.initial) out[k] = f.initial();
  return out as R;
}

/** Each input field of the body, read by its rule; one 400 names every bad field. */
export function parseInput<R, C>(res: Resource<R, C>, body: Body, ctx: InputContext): Partial<R> {
  const bad = new FieldErrors();
  const out: Partial<R> = {};
  for (const [k, f] of fieldsOf(res)) {
    if (!f.input) continue;
    const v = bad.read(() => f.input!(body, jsonName(k, f), ctx));
    if (v !== undefined) out[k] = v as R[typeof k];
  }
  bad.throwAny();
  return out;
}

/** An update: each plain input field given replaces its value, one left out stays as it was. */
export function mergeInput<R, C>(res: Resource<R, C>, before: R, input: Partial<R>): R {
  const next = { ...before };
  for (const [k, f] of fieldsOf(res)) {
    if (f.input && !f.ownMerge && input[k] !== undefined) next[k] = input[k] as R[typeof k];
  }
  return next;
}

const sees = (role: Role, least: Role | 'never' | undefined): boolean => least !== 'never' && RANK[role] >= RANK[least ?? 'viewer'];

/** The record as `role` sees it: the API's names, the derived values (from `context` too), nothing above the role. */
export function present<R, C>(res: Resource<R, C>, r: R, role: Role, ...context: C extends undefined ? [] : [C]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const derived = Object.entries(res.derived ?? {});
  const ctx = context[0] as C;
  const derive = (name: string, d: Derived<R, C>) => {
    const v = sees(role, d.seenBy) ? d.value(r, ctx) : undefined;
    if (v !== undefined) out[name] = v;
  };
  for (const [name, d] of derived) if (d.after === undefined) derive(name, d);
  for (const [k, f] of fieldsOf(res)) {
    if (sees(role, f.seenBy)) {
      const v = f.whole && !sees(role, f.whole.role) ? f.whole.outline(r[k]) : r[k];
      out[jsonName(k, f)] = f.show ? f.show(v) : v ?? null;
    }
    for (const [name, d] of derived) if (d.after === k) derive(name, d);
  }
  return out;
}

/** The OpenAPI schema of what the API shows and takes; a field above viewer is marked with `x-wgcp-role`, one masked below a role with `x-wgcp-whole-role`. */
export function jsonSchema<R, C>(res: Resource<R, C>): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const derived = Object.entries(res.derived ?? {});
  for (const [name, d] of derived) if (d.after === undefined) properties[name] = { ...d.schema, readOnly: true };
  for (const [k, f] of fieldsOf(res)) {
    // An input never shown (a credential's lifetime in days) is in the schema of what the API takes.
    if (f.seenBy === 'never' && f.input && f.schema) properties[jsonName(k, f)] = { ...f.schema, writeOnly: true };
    else if (f.seenBy !== 'never') {
      const role = f.seenBy && f.seenBy !== 'viewer' ? { 'x-wgcp-role': f.seenBy } : {};
      const whole = f.whole ? { 'x-wgcp-whole-role': f.whole.role } : {};
      properties[jsonName(k, f)] = { ...f.schema, ...(f.input ? {} : { readOnly: true }), ...role, ...whole };
    }
    // Read-only unless its schema says otherwise (a value a body sets through an unshown field).
    for (const [name, d] of derived) if (d.after === k) properties[name] = { readOnly: true, ...d.schema };
  }
  return { type: 'object', ...(res.description ? { description: res.description } : {}), ...(res.required ? { required: res.required } : {}), properties };
}

/** The JSON names a role may not see or the presenter may leave out: optional in the page's type. */
export function optionalNames<R, C>(res: Resource<R, C>): Set<string> {
  const out = new Set<string>();
  for (const [k, f] of fieldsOf(res)) if (f.seenBy && f.seenBy !== 'viewer') out.add(jsonName(k, f));
  for (const [name, d] of Object.entries(res.derived ?? {})) if (d.optional || (d.seenBy && d.seenBy !== 'viewer')) out.add(name);
  return out;
}
