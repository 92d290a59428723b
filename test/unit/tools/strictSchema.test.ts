import assert from 'node:assert/strict';
import { toStrictSchema } from '../../../src/core/tools/strictSchema';

describe('toStrictSchema', () => {
  it('adds additionalProperties:false to every object schema, recursively', () => {
    const source = {
      type: 'object',
      properties: {
        a: { type: 'object', properties: { b: { type: 'string' } } },
        list: { type: 'array', items: { type: 'object', properties: { c: { type: 'number' } } } },
        either: { anyOf: [{ type: 'object', properties: { d: { type: 'string' } } }, { type: 'null' }] },
      },
      $defs: { thing: { type: 'object', properties: { e: { type: 'string' } } } },
    };
    const strict = toStrictSchema(source) as any;
    assert.equal(strict.additionalProperties, false);
    assert.equal(strict.properties.a.additionalProperties, false);
    assert.equal(strict.properties.list.items.additionalProperties, false);
    assert.equal(strict.properties.either.anyOf[0].additionalProperties, false);
    assert.equal(strict.properties.either.anyOf[1].additionalProperties, undefined);
    assert.equal(strict.$defs.thing.additionalProperties, false);
  });

  it('leaves object schemas that list no properties open (free-form maps), at any depth', () => {
    const source = {
      type: 'object',
      properties: { meta: { type: 'object' }, empty: { type: 'object', properties: {} }, list: { type: 'array', items: { type: ['object', 'null'] } } },
    };
    const strict = toStrictSchema(source) as any;
    assert.equal(strict.additionalProperties, false);
    assert.equal('additionalProperties' in strict.properties.meta, false);
    assert.equal('additionalProperties' in strict.properties.empty, false);
    assert.equal('additionalProperties' in strict.properties.list.items, false);
    assert.deepEqual(toStrictSchema({ type: 'object' }), { type: 'object' });
  });

  it('never mutates the source schema', () => {
    const source = { type: 'object', properties: { a: { type: 'object', properties: {} } } };
    const before = JSON.stringify(source);
    const strict = toStrictSchema(source) as any;
    assert.equal(JSON.stringify(source), before);
    assert.notEqual(strict.properties, source.properties);
  });

  it('keeps explicit additionalProperties and leaves required lists alone', () => {
    const source = {
      type: 'object',
      required: ['a'],
      properties: { a: { type: 'string' }, map: { type: 'object', additionalProperties: { type: 'object', properties: { x: { type: 'string' } } } } },
      additionalProperties: true,
    };
    const strict = toStrictSchema(source) as any;
    assert.equal(strict.additionalProperties, true);
    assert.deepEqual(strict.required, ['a']);
    // The explicit map value schema is itself an object and gets closed.
    assert.equal(strict.properties.map.additionalProperties.additionalProperties, false);
  });

  it('does not close composed objects or treat data as schema', () => {
    const source = {
      type: 'object',
      allOf: [{ properties: { a: { type: 'string' } } }],
      properties: { mode: { enum: [{ type: 'object', properties: {} }] }, def: { type: 'object', default: { type: 'object' } } },
    };
    const strict = toStrictSchema(source) as any;
    assert.equal('additionalProperties' in strict, false);
    assert.equal(strict.allOf[0].additionalProperties, false);
    assert.deepEqual(strict.properties.mode.enum, [{ type: 'object', properties: {} }]);
    assert.deepEqual(strict.properties.def.default, { type: 'object' });
  });
});
