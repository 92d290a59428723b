import assert from 'node:assert/strict';
import { createJsonSchemaValidator } from '../../../src/core/mcp/jsonSchemaCheck';
import { modelParameters } from '../../../src/core/mcp/mcpTools';

const errorOf = (schema: Record<string, unknown>, value: unknown) => {
  const result = createJsonSchemaValidator(modelParameters(schema))(value);
  return result.ok ? 'ok' : result.error;
};

describe('JSON Schema validation of MCP tool arguments', () => {
  const sum = {
    $schema: 'http://json-schema.org/draft-07/schema#',
    type: 'object',
    properties: { a: { type: 'number' }, b: { type: 'number' } },
    required: ['a', 'b'],
  };

  it('is made strict like native schemas: $schema dropped, additionalProperties false', () => {
    assert.deepEqual(modelParameters(sum), {
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
      required: ['a', 'b'],
      additionalProperties: false,
    });
    // No listed fields: nothing to close.
    assert.deepEqual(modelParameters(undefined), { type: 'object' });
  });

  it('leaves a free-form object parameter open: any field in it passes, a field beside the listed ones does not', () => {
    const schema = {
      type: 'object',
      properties: { name: { type: 'string' }, meta: { type: 'object' }, tags: { type: 'object', properties: {} } },
      required: ['name'],
    };
    assert.deepEqual(modelParameters(schema).properties, { name: { type: 'string' }, meta: { type: 'object' }, tags: { type: 'object', properties: {} } });
    assert.equal(errorOf(schema, { name: 'n', meta: { owner: 'x', nested: { deep: [1] } }, tags: { a: 1 } }), 'ok');
    assert.equal(errorOf(schema, { name: 'n', metaa: {} }), 'Invalid arguments: unknown field(s): metaa (allowed: name, meta, tags)');
    assert.match(errorOf(schema, { name: 'n', meta: 'x' }), /field 'meta' must be object, got string/);
  });

  it("names missing, mistyped and unknown fields in the native tools' words", () => {
    assert.equal(errorOf(sum, { a: 1, b: 2 }), 'ok');
    assert.equal(
      errorOf(sum, { a: '1', c: 3 }),
      "Invalid arguments: missing required field(s): b; field 'a' must be number, got string; unknown field(s): c (allowed: a, b)",
    );
    assert.equal(errorOf(sum, [1, 2]), 'Invalid arguments: the arguments must be a JSON object, got array');
  });

  it('checks integers, enums, const, bounds, patterns and nested arrays and objects', () => {
    const schema = {
      type: 'object',
      properties: {
        count: { type: 'integer', minimum: 1, maximum: 10 },
        mode: { type: 'string', enum: ['fast', 'slow'] },
        fixed: { const: 'v1' },
        name: { type: 'string', minLength: 2, maxLength: 4, pattern: '^[a-z]+$' },
        items: { type: 'array', maxItems: 2, items: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] } },
      },
    };
    assert.equal(errorOf(schema, { count: 3, mode: 'fast', fixed: 'v1', name: 'abc', items: [{ id: 'x' }] }), 'ok');
    assert.equal(
      errorOf(schema, { count: 1.5, mode: 'medium', fixed: 'v2', name: 'ABCDE', items: [{ id: 1 }, {}, { id: 'z', extra: true }] }),
      "Invalid arguments: missing required field(s): items[1].id; field 'count' must be integer, got number; field 'mode' must be one of: \"fast\", \"slow\"; field 'fixed' must be \"v1\"; field 'name' must be at most 4 characters long; field 'name' must match the pattern ^[a-z]+$; field 'items' must have at most 2 item(s); field 'items[0].id' must be string, got integer; unknown field(s): items[2].extra (allowed: count, mode, fixed, name, items)",
    );
    assert.match(errorOf(schema, { count: 0 }), /field 'count' must be at least 1/);
  });

  it('accepts any branch of anyOf/oneOf and says every accepted type when none fits', () => {
    const schema = {
      type: 'object',
      properties: { when: { anyOf: [{ type: 'string' }, { type: 'null' }] }, id: { oneOf: [{ type: 'integer' }, { type: 'string', pattern: '^#' }] } },
    };
    assert.equal(errorOf(schema, { when: null, id: '#3' }), 'ok');
    assert.equal(errorOf(schema, { when: 5 }), "Invalid arguments: field 'when' must be string or null, got integer");
    assert.equal(errorOf(schema, { id: 'x' }), "Invalid arguments: field 'id' must match the pattern ^#");
  });

  it('follows local $refs, lists of types and additionalProperties schemas', () => {
    const schema = {
      type: 'object',
      $defs: { tag: { type: 'string', maxLength: 3 } },
      properties: {
        tags: { type: 'array', items: { $ref: '#/$defs/tag' } },
        maybe: { type: ['number', 'null'] },
        meta: { type: 'object', additionalProperties: { type: 'boolean' } },
      },
    };
    assert.equal(errorOf(schema, { tags: ['a', 'bcd'], maybe: null, meta: { x: true } }), 'ok');
    assert.equal(
      errorOf(schema, { tags: ['abcd'], maybe: 'no', meta: { x: 1 } }),
      "Invalid arguments: field 'tags[0]' must be at most 3 characters long; field 'maybe' must be number or null, got string; field 'meta.x' must be boolean, got integer",
    );
  });

  it('ignores keywords and patterns it cannot read instead of refusing the call', () => {
    const schema = { type: 'object', properties: { a: { type: 'string', format: 'uri', pattern: '(?<unclosed', 'x-custom': 1 } } };
    assert.equal(errorOf(schema, { a: 'anything' }), 'ok');
  });
});
