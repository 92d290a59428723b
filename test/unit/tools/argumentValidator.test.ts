import assert from 'node:assert/strict';
import { z } from 'zod';
import { describeIssues, validateToolArguments } from '../../../src/core/tools/argumentValidator';

const schema = z.strictObject({
  path: z.string().min(1),
  start_line: z.number().int().min(1).optional(),
  options: z.strictObject({ recursive: z.boolean() }).optional(),
});

describe('validateToolArguments', () => {
  it('accepts valid arguments and returns the parsed value', () => {
    assert.deepEqual(validateToolArguments(schema, { path: 'a', start_line: 2 }), { ok: true, value: { path: 'a', start_line: 2 } });
  });

  it('names missing required fields ({} for read_file)', () => {
    const result = validateToolArguments(schema, {});
    assert.equal(result.ok, false);
    if (result.ok) return;
    assert.equal(result.error, 'Invalid arguments: missing required field(s): path');
    assert.deepEqual(result.issues, [{ kind: 'missing', path: 'path', message: "missing required field 'path'" }]);
  });

  it('names wrong types with what was received', () => {
    const result = validateToolArguments(schema, { path: 'a', start_line: '3' });
    assert.equal(result.ok, false);
    if (!result.ok) assert.match(result.error, /field 'start_line' must be number, got string/);
  });

  it('names unknown keys of strict objects, with the allowed ones, at any depth', () => {
    const result = validateToolArguments(schema, { path: 'a', file: 'b', options: { recursive: true, deep: 1 } });
    assert.equal(result.ok, false);
    if (!result.ok) {
      assert.match(result.error, /unknown field\(s\): (file, options\.deep|options\.deep, file) \(allowed: path, start_line, options\)/);
      assert.deepEqual(
        result.issues.map((i) => i.kind),
        ['unknown', 'unknown'],
      );
    }
  });

  it('says when the arguments are not an object at all', () => {
    for (const [value, got] of [
      [[1], 'array'],
      ['x', 'string'],
      [null, 'null'],
    ] as const) {
      const result = validateToolArguments(schema, value);
      assert.equal(result.ok, false);
      if (!result.ok) assert.match(result.error, new RegExp(`the arguments must be a JSON object, got ${got}`));
    }
  });

  it('reports other constraint failures by field', () => {
    const result = validateToolArguments(schema, { path: '' });
    assert.equal(result.ok, false);
    if (!result.ok) assert.match(result.error, /field 'path': Too small/);
  });

  it('groups several problems in one sentence', () => {
    const text = describeIssues([
      { kind: 'missing', path: 'a', message: '' },
      { kind: 'missing', path: 'b', message: '' },
      { kind: 'type', path: 'c', message: "field 'c' must be string, got number" },
      { kind: 'unknown', path: 'd', message: '' },
    ]);
    assert.equal(text, "Invalid arguments: missing required field(s): a, b; field 'c' must be string, got number; unknown field(s): d");
  });
});
