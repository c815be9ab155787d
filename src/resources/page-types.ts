// The page's types, written from the descriptions' JSON Schemas: web/src/types.generated.ts
// is this module's output, never edited by hand. `node dist/src/resources/page-types.js`
// writes it (web/build.mjs runs it before it compiles the page); test/web-types.test.ts
// fails when the file in the tree is not what the descriptions give now.
import fs from 'node:fs';
import path from 'node:path';
import { jsonSchema, optionalNames, type JsonSchema, type Resource } from './describe';
import { PAGE_RESOURCES } from './all';

const literal = (v: unknown): string => JSON.stringify(v).replace(/"/g, "'");
/** Parenthesised when it is a union at its top level (inside no braces or parentheses). */
function wrap(t: string): string {
  let depth = 0;
  for (let i = 0; i < t.length; i++) {
    if ('{(['.includes(t[i])) depth++;
    else if ('})]'.includes(t[i])) depth--;
    else if (t[i] === '|' && depth === 0) return `(${t})`;
  }
  return t;
}

/** The schemas named by $ref while types are written (pageTypesText imports those it does not write). */
const referenced = new Set<string>();

/** The TypeScript type of a JSON Schema fragment (the subset the descriptions use). */
export function typeOf(s: JsonSchema, indent = ''): string {
  if (s.$ref) {
    const name = String(s.$ref).replace('#/components/schemas/', '');
    referenced.add(name);
    return name;
  }
  if (s.const !== undefined) return literal(s.const);
  if (Array.isArray(s.enum)) return s.enum.map(literal).join(' | ');
  if (Array.isArray(s.oneOf) || Array.isArray(s.anyOf)) return [...new Set(((s.oneOf ?? s.anyOf) as JsonSchema[]).map((x) => typeOf(x, indent)))].join(' | ');
  const types = Array.isArray(s.type) ? s.type as string[] : [String(s.type)];
  return types.map((t) => {
    switch (t) {
      case 'integer': case 'number': return 'number';
      case 'string': return 'string';
      case 'boolean': return 'boolean';
      case 'null': return 'null';
      case 'array': return `${wrap(typeOf((s.items ?? {}) as JsonSchema, indent))}[]`;
      case 'object': return objectType(s, indent);
      default: return 'unknown';
    }
  }).join(' | ');
}

function objectType(s: JsonSchema, indent: string, optional: (name: string, p: JsonSchema) => boolean = () => false): string {
  const props = Object.entries((s.properties ?? {}) as Record<string, JsonSchema>);
  if (props.length === 0) return s.additionalProperties && typeof s.additionalProperties === 'object' ? `Record<string, ${typeOf(s.additionalProperties as JsonSchema)}>` : 'Record<string, unknown>';
  const inner = `${indent}  `;
  const lines = props.map(([name, p]) => {
    const doc = typeof p.description === 'string' ? `${inner}/** ${p.description.replace(/\*\//g, '*\\/')} */\n` : '';
    return `${doc}${inner}${name}${optional(name, p) ? '?' : ''}: ${typeOf(p, inner)};`;
  });
  return `{\n${lines.join('\n')}\n${indent}}`;
}

/** One resource's interface: a field some roles do not see, or the presenter may leave out, is optional. */
export function interfaceOf<R, C>(res: Resource<R, C>): string {
  const optional = optionalNames(res);
  const body = objectType(jsonSchema(res), '', (name) => optional.has(name));
  return `/** schema ${res.name} */\nexport interface ${res.name} ${body}\n`;
}

export function pageTypesText(): string {
  referenced.clear();
  const interfaces = PAGE_RESOURCES.map((r) => interfaceOf(r as Resource<unknown, unknown>));
  // A schema named that no description gives is one of the hand-written types (web/src/types.ts).
  const generated = new Set<string>(PAGE_RESOURCES.map((r) => r.name));
  const handWritten = [...referenced].filter((n) => !generated.has(n)).sort();
  return ['// Written by src/resources/page-types.ts from the resource descriptions (src/resources/*.ts):',
    '// do not edit; `npm run build` writes it again.',
    ...(handWritten.length ? [`import type { ${handWritten.join(', ')} } from './types';`] : []),
    '', ...interfaces].join('\n');
}

export const PAGE_TYPES_FILE = path.join('web', 'src', 'types.generated.ts');

if (require.main === module) {
  const root = process.argv[2] ?? path.join(__dirname, '..', '..', '..');
  const file = path.join(root, PAGE_TYPES_FILE);
  const text = pageTypesText();
  // Written only when it differs: the page's build hashes its sources.
  if (!fs.existsSync(file) || fs.readFileSync(file, 'utf8') !== text) fs.writeFileSync(file, text);
}
