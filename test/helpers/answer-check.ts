// A real answer held to the OpenAPI schema its route documents, strictly: each value of its
// type, format and enum, no field the schema lacks, and every field the schema shows (not
// write-only) present. The subset of JSON Schema the document uses: $ref, allOf, oneOf/anyOf, enum,
// const, type (a list too), properties, additionalProperties, items, format date-time.
type Schema = Record<string, any>;

const typeOfValue = (v: unknown): string[] => {
  if (v === null) return ['null'];
  if (Array.isArray(v)) return ['array'];
  if (typeof v === 'number') return Number.isInteger(v) ? ['integer', 'number'] : ['number'];
  return [typeof v];
};

/** What is wrong with `value` against `schema`, each as "path: why"; [] when it holds. */
export function answerProblems(schema: Schema, value: unknown, doc: Schema, at = '$'): string[] {
  if (schema.$ref) return answerProblems(doc.components.schemas[String(schema.$ref).split('/').pop()!], value, doc, at);
  // allOf as the one object of its parts' properties (a resource and the fields an answer adds to it).
  if (schema.allOf) {
    const parts = (schema.allOf as Schema[]).map((p) => (p.$ref ? doc.components.schemas[String(p.$ref).split('/').pop()!] : p));
    return answerProblems({ type: 'object', properties: Object.assign({}, ...parts.map((p) => p.properties ?? {})) }, value, doc, at);
  }
  const branches = schema.oneOf ?? schema.anyOf;
  if (branches) {
    const each = (branches as Schema[]).map((b) => answerProblems(b, value, doc, at));
    return each.some((p) => p.length === 0) ? [] : [`${at}: matches none of its ${branches.length} forms (${each.map((p) => p[0]).join('; ')})`];
  }
  if (schema.const !== undefined && value !== schema.const) return [`${at}: is ${JSON.stringify(value)}, not ${JSON.stringify(schema.const)}`];
  if (schema.enum && !schema.enum.includes(value)) return [`${at}: ${JSON.stringify(value)} is not one of ${JSON.stringify(schema.enum)}`];
  const types: string[] | undefined = schema.type === undefined ? undefined : [schema.type].flat();
  if (types && !typeOfValue(value).some((t) => types.includes(t))) return [`${at}: is ${typeOfValue(value)[0]}, not ${types.join(' or ')}`];
  if (schema.format === 'date-time' && typeof value === 'string' && Number.isNaN(Date.parse(value))) return [`${at}: "${value}" is not a date-time`];
  const problems: string[] = [];
  if (Array.isArray(value) && schema.items) value.forEach((v, i) => problems.push(...answerProblems(schema.items, v, doc, `${at}[${i}]`)));
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const props: Record<string, Schema> = schema.properties ?? {};
    for (const [k, v] of Object.entries(value)) {
      if (props[k]) problems.push(...answerProblems(props[k], v, doc, `${at}.${k}`));
      else if (typeof schema.additionalProperties === 'object') problems.push(...answerProblems(schema.additionalProperties, v, doc, `${at}.${k}`));
      else if (schema.properties) problems.push(`${at}.${k}: in the answer, not in the schema`);
    }
    for (const [k, p] of Object.entries(props)) if (!(k in value) && !p.writeOnly) problems.push(`${at}.${k}: in the schema, not in the answer`);
  }
  return problems;
}

/** The schema a route documents for an answer of `status` in JSON. */
export function documentedAnswer(doc: Schema, method: string, path: string, status: number): Schema {
  const op = doc.paths[path]?.[method.toLowerCase()];
  if (!op) throw new Error(`${method} ${path} is not documented`);
  const schema = op.responses[String(status)]?.content?.['application/json']?.schema;
  if (!schema) throw new Error(`${method} ${path} documents no JSON answer ${status}`);
  return schema;
}
