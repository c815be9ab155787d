// The page's wire types (web/src/types.ts) read with the TypeScript compiler, as field trees,
// and compared with what the API says: a real answer's JSON, or an OpenAPI schema. Used by
// test/web-types.test.ts only.
import fs from 'node:fs';
import ts from 'typescript';

/** A record's fields; a field whose type is itself a record (or a list of them) has its own. */
export interface Shape { fields: Map<string, Shape | null> }

/** Every interface of the files, by name, with the schema or route its doc comment names (a type of one file may name another's). */
export function readShapes(...files: string[]): Map<string, { shape: Shape; doc: string }> {
  const decls = new Map<string, ts.InterfaceDeclaration>();
  for (const file of files) {
    const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true);
    source.forEachChild((n) => { if (ts.isInterfaceDeclaration(n)) decls.set(n.name.text, n); });
  }
  const shapeOfMembers = (members: ts.NodeArray<ts.TypeElement>): Shape => {
    const fields = new Map<string, Shape | null>();
    for (const m of members) {
      if (!ts.isPropertySignature(m) || !m.name) continue;
      fields.set(m.name.getText(), m.type ? shapeOfType(m.type) : null);
    }
    return { fields };
  };
  const shapeOfType = (t: ts.TypeNode): Shape | null => {
    if (ts.isUnionTypeNode(t)) {
      for (const u of t.types) { const s = shapeOfType(u); if (s) return s; }
      return null;
    }
    if (ts.isArrayTypeNode(t)) return shapeOfType(t.elementType);
    if (ts.isParenthesizedTypeNode(t)) return shapeOfType(t.type);
    if (ts.isTypeLiteralNode(t)) return shapeOfMembers(t.members);
    if (ts.isTypeReferenceNode(t) && decls.has(t.typeName.getText())) return shapeOfMembers(decls.get(t.typeName.getText())!.members);
    return null;
  };
  const out = new Map<string, { shape: Shape; doc: string }>();
  for (const [name, d] of decls) {
    const doc = ts.getJSDocCommentsAndTags(d).map((j) => (typeof j.comment === 'string' ? j.comment : '')).join(' ');
    out.set(name, { shape: shapeOfMembers(d.members), doc });
  }
  return out;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Fields of a JSON answer that the shape does not declare, as dotted paths. */
export function undeclaredInAnswer(shape: Shape, value: unknown, at: string): string[] {
  if (Array.isArray(value)) return value.flatMap((v, i) => undeclaredInAnswer(shape, v, `${at}[${i}]`));
  if (!isRecord(value)) return [];
  const missing: string[] = [];
  for (const [k, v] of Object.entries(value)) {
    if (!shape.fields.has(k)) { missing.push(`${at}.${k}`); continue; }
    const inner = shape.fields.get(k);
    if (inner) missing.push(...undeclaredInAnswer(inner, v, `${at}.${k}`));
  }
  return missing;
}

type Schema = { $ref?: string; properties?: Record<string, Schema>; items?: Schema; allOf?: Schema[] };

function resolve(schema: Schema, doc: { components: { schemas: Record<string, Schema> } }): Schema {
  if (schema.$ref) return resolve(doc.components.schemas[schema.$ref.replace('#/components/schemas/', '')], doc);
  if (schema.items) return resolve(schema.items, doc);
  if (schema.allOf) return { properties: Object.assign({}, ...schema.allOf.map((s) => resolve(s, doc).properties ?? {})) };
  return schema;
}

/** Both ways: schema properties the shape lacks, and shape fields the schema lacks. */
export function differencesFromSchema(shape: Shape, schema: Schema, doc: { components: { schemas: Record<string, Schema> } }, at: string): string[] {
  const props = resolve(schema, doc).properties ?? {};
  const out: string[] = [];
  for (const [k, p] of Object.entries(props)) {
    if (!shape.fields.has(k)) { out.push(`${at}.${k} is in the schema, not in the page's type`); continue; }
    const inner = shape.fields.get(k);
    if (inner && resolve(p, doc).properties) out.push(...differencesFromSchema(inner, p, doc, `${at}.${k}`));
  }
  for (const k of shape.fields.keys()) if (!(k in props)) out.push(`${at}.${k} is in the page's type, not in the schema`);
  return out;
}
