import { isRecord } from '../text/isRecord';

// Conservative strict-ification of a tool's JSON Schema before it is sent to the model
// (docs/design.md, “Tool name resolution”): every object schema that lists its properties and does
// not say otherwise gets `additionalProperties: false`, which discourages argument drift. A
// free-form object (`{"type": "object"}` with no properties, common in MCP servers for metadata or
// options maps) stays open: the schema describes no fields, so closing it would forbid every field
// the tool accepts. Nothing else changes (required lists, types and explicit additionalProperties
// stay as written) and the source schema is never mutated.

type Json = unknown;

const SUBSCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'] as const;
const SUBSCHEMA_LISTS = ['anyOf', 'oneOf', 'allOf', 'prefixItems'] as const;
const SUBSCHEMA_SINGLE = ['items', 'not', 'if', 'then', 'else', 'contains', 'additionalItems', 'propertyNames', 'unevaluatedItems'] as const;

function isObjectSchema(schema: Record<string, Json>): boolean {
  const type = schema.type;
  return type === 'object' || (Array.isArray(type) && type.includes('object')) || (type === undefined && isRecord(schema.properties));
}

/** Whether the schema names the fields it takes: only then is "no other field" what it means. */
function listsProperties(schema: Record<string, Json>): boolean {
  return isRecord(schema.properties) && Object.keys(schema.properties).length > 0;
}

/** A deep copy of `schema` with `additionalProperties: false` added to every object schema that lists properties and lacks it. */
export function toStrictSchema<T>(schema: T): T {
  return strictify(schema) as T;
}

function strictify(node: Json): Json {
  if (Array.isArray(node)) return node.map(strictify);
  if (!isRecord(node)) return node;
  const out: Record<string, Json> = {};
  for (const [key, value] of Object.entries(node)) {
    if ((SUBSCHEMA_MAPS as readonly string[]).includes(key) && isRecord(value)) {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, strictify(sub)]));
    } else if ((SUBSCHEMA_LISTS as readonly string[]).includes(key) && Array.isArray(value)) {
      out[key] = value.map(strictify);
    } else if ((SUBSCHEMA_SINGLE as readonly string[]).includes(key) || key === 'additionalProperties') {
      out[key] = strictify(value);
    } else {
      // Data, not schema (enum, const, default, examples...): copy without touching.
      out[key] = structuredClone(value);
    }
  }
  // Composed objects (allOf/anyOf/oneOf beside properties) are left alone: a closed object there
  // would reject the properties its branches add.
  const composed = 'allOf' in out || 'anyOf' in out || 'oneOf' in out;
  if (isObjectSchema(out) && listsProperties(out) && !composed && !('additionalProperties' in out) && !('unevaluatedProperties' in out))
    out.additionalProperties = false;
  return out;
}
