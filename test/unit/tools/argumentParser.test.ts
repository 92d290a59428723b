import assert from 'node:assert/strict';
import { looksTruncated, parseToolArguments } from '../../../src/core/tools/argumentParser';

describe('parseToolArguments', () => {
  it('parses an object and treats empty text as {}', () => {
    assert.deepEqual(parseToolArguments('{"path":"a.ts"}'), { ok: true, value: { path: 'a.ts' }, doubleEncoded: false });
    assert.deepEqual(parseToolArguments(''), { ok: true, value: {}, doubleEncoded: false });
    assert.deepEqual(parseToolArguments('  \n'), { ok: true, value: {}, doubleEncoded: false });
  });

  it('unwraps double-encoded arguments', () => {
    const result = parseToolArguments(JSON.stringify(JSON.stringify({ path: 'a.ts' })));
    assert.deepEqual(result, { ok: true, value: { path: 'a.ts' }, doubleEncoded: true });
  });

  it('leaves a plain JSON string for validation to refuse', () => {
    assert.deepEqual(parseToolArguments('"hello"'), { ok: true, value: 'hello', doubleEncoded: false });
  });

  it('classifies cut-off JSON as truncated', () => {
    for (const raw of ['{"path":"a.ts', '{"content":"line\\n', '{"a":[1,2', '{"a":{"b":1}']) {
      const result = parseToolArguments(raw);
      assert.equal(result.ok, false, raw);
      if (!result.ok) assert.equal(result.error, 'truncated', raw);
    }
  });

  it('classifies broken JSON as invalid_json', () => {
    for (const raw of ['{path: "a"}', '{"a":1}}', "{'a':1}", '{"a" 1}', 'not json']) {
      const result = parseToolArguments(raw);
      assert.equal(result.ok, false, raw);
      if (!result.ok) {
        assert.equal(result.error, 'invalid_json', raw);
        assert.match(result.message, /not valid JSON/);
      }
    }
  });

  it('says truncated when the stream said so, even for text that parses', () => {
    const incomplete = parseToolArguments('{}', { isComplete: false });
    assert.equal(incomplete.ok, false);
    if (!incomplete.ok) assert.equal(incomplete.error, 'truncated');
    const length = parseToolArguments('{"a" 1', { finishReason: 'length' });
    assert.equal(!length.ok && length.error, 'truncated');
    if (!length.ok) assert.match(length.message, /finish_reason=length/);
  });

  it('refuses arguments over the byte limit as too_large', () => {
    const result = parseToolArguments(JSON.stringify({ content: 'é'.repeat(600) }), { maxBytes: 1000 });
    assert.equal(result.ok, false);
    if (!result.ok) {
      assert.equal(result.error, 'too_large');
      assert.match(result.message, /over the 1000-byte limit/);
    }
  });
});

describe('looksTruncated', () => {
  it('tells an unfinished prefix from a syntax error', () => {
    assert.equal(looksTruncated('{"a":"b\\"'), true);
    assert.equal(looksTruncated('[{"a":1}'), true);
    assert.equal(looksTruncated('{"a":1}]'), false);
    assert.equal(looksTruncated('{"a":1]'), false);
    assert.equal(looksTruncated('{"a" 1}'), false);
  });
});
