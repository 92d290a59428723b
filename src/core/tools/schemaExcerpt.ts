import { isRecord } from '../text/isRecord';

// A tool schema cut down to fit a repair prompt (docs/design.md, “LLM repair of tool names and arguments”: keep the essential fields and a
// limited depth). Reductions are applied in order until the JSON fits `maxBytes`: long
// descriptions go first, then nested detail, then optional properties. A reduced excerpt says so.

type Schema = Record<string, unknown>;

const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value), 'utf8');

/** A property schema reduced to its type information (type, enum, const, items' type). */
function typeOnly(schema: unknown): Schema {
  if (!isRecord(schema)) return {};
  const out: Schema = {};
  for (const key of ['type', 'enum', 'const', 'format']) if (key in schema) out[key] = schema[key];
  if (isRecord(schema.items)) out.items = typeOnly(schema.items);
  if (Array.isArray(schema.anyOf)) out.anyOf = schema.anyOf.map(typeOnly);
  if (isRecord(schema.properties)) {
    out.properties = Object.fromEntries(Object.entries(schema.properties).map(([k, v]) => [k, { type: isRecord(v) ? v.type : undefined }]));
    if (Array.isArray(schema.required)) out.required = schema.required;
  }
  return out;
}

function withShortDescriptions(schema: Schema, maxChars: number): Schema {
  const properties = isRecord(schema.properties) ? schema.properties : {};
  return {
    ...typeOnly(schema),
    ...(typeof schema.description === 'string' && maxChars > 0 ? { description: schema.description.slice(0, maxChars) } : {}),
    properties: Object.fromEntries(
      Object.entries(properties).map(([name, prop]) => {
        const reduced = typeOnly(prop);
        if (maxChars > 0 && isRecord(prop) && typeof prop.description === 'string') reduced.description = prop.description.slice(0, maxChars);
        return [name, reduced];
      }),
    ),
    ...(Array.isArray(schema.required) ? { required: schema.required } : {}),
    ...('additionalProperties' in schema ? { additionalProperties: schema.additionalProperties } : {}),
  };
}

/** The schema itself when it fits `maxBytes`, else the largest reduction that does (marked `x-excerpt`). */
export function schemaExcerpt(schema: Schema, maxBytes: number): Schema {
  if (bytes(schema) <= maxBytes) return schema;
  const marked = (s: Schema, note: string): Schema => ({ ...s, 'x-excerpt': note });
  for (const chars of [200, 80]) {
    const reduced = marked(withShortDescriptions(schema, chars), 'schema shortened for this prompt');
    if (bytes(reduced) <= maxBytes) return reduced;
  }
  const bare = withShortDescriptions(schema, 0);
  const properties = isRecord(bare.properties) ? bare.properties : {};
  const required = new Set(Array.isArray(bare.required) ? (bare.required as string[]) : []);
  // Required properties first, then the others in order, as many as fit.
  const order = [...Object.keys(properties).filter((k) => required.has(k)), ...Object.keys(properties).filter((k) => !required.has(k))];
  const kept: Schema = {};
  let result = marked({ ...bare, properties: kept }, `${order.length} properties not shown`);
  for (let i = 0; i < order.length; i++) {
    const nextKept = { ...kept, [order[i]]: properties[order[i]] };
    const remaining = order.length - i - 1;
    const candidate = marked({ ...bare, properties: nextKept }, remaining ? `${remaining} properties not shown` : 'schema shortened for this prompt');
    if (bytes(candidate) > maxBytes) break;
    kept[order[i]] = properties[order[i]];
    result = candidate;
  }
  return result;
}
