import assert from 'node:assert/strict';
import { decodeArgumentText, looksTruncated } from '../../../src/core/llm/argumentDecoding';

// The one decoding of a call's argument text (docs/design.md, “Preflight validation and the invalid result”, parsing), whose result the tool
// pipeline reads. The accumulator's summary of it is covered with the provider shapes.

const whole = { cutOff: false };

describe('decodeArgumentText', () => {
  it('decodes an object and reads empty text as {}', () => {
    assert.deepEqual(decodeArgumentText('{"path":"a.ts"}', whole).decoded, { ok: true, value: { path: 'a.ts' }, doubleEncoded: false });
    assert.deepEqual(decodeArgumentText('', whole), { decoded: { ok: true, value: {}, doubleEncoded: false }, note: 'empty arguments read as {}' });
    assert.deepEqual(decodeArgumentText('  \n', whole).decoded, { ok: true, value: {}, doubleEncoded: false });
  });

  it('unwraps double-encoded objects and arrays once, and says so', () => {
    assert.deepEqual(decodeArgumentText(JSON.stringify(JSON.stringify({ path: 'a.ts' })), whole), {
      decoded: { ok: true, value: { path: 'a.ts' }, doubleEncoded: true },
      note: 'double-encoded JSON arguments: parsed a second time',
    });
    assert.deepEqual(decodeArgumentText(JSON.stringify('[1]'), whole).decoded, { ok: true, value: [1], doubleEncoded: true });
  });

  it('leaves other JSON values for validation to refuse, with a note', () => {
    assert.deepEqual(decodeArgumentText('"hello"', whole), {
      decoded: { ok: true, value: 'hello', doubleEncoded: false },
      note: 'arguments are a JSON string that is not itself JSON',
    });
    assert.deepEqual(decodeArgumentText(JSON.stringify('42'), whole), {
      decoded: { ok: true, value: '42', doubleEncoded: false },
      note: 'double-encoded arguments are not a JSON object',
    });
    assert.deepEqual(decodeArgumentText('null', whole), {
      decoded: { ok: true, value: null, doubleEncoded: false },
      note: 'arguments must be a JSON object, got null',
    });
  });

  it('classifies an unterminated value as truncated', () => {
    for (const raw of ['{"path":"a.ts', '{"content":"line\\n', '{"a":[1,2', '{"a":{"b":1}']) {
      assert.deepEqual(
        decodeArgumentText(raw, whole).decoded,
        { ok: false, error: 'truncated', message: 'the arguments were cut off before the JSON ended' },
        raw,
      );
    }
  });

  it('classifies broken JSON as invalid_json, naming the syntax error', () => {
    for (const raw of ['{path: "a"}', '{"a":1}}', "{'a':1}", '{"a" 1}', 'not json']) {
      const { decoded } = decodeArgumentText(raw, whole);
      assert.equal(decoded.ok, false, raw);
      if (!decoded.ok) {
        assert.equal(decoded.error, 'invalid_json', raw);
        assert.match(decoded.message, /^the arguments are not valid JSON: /);
      }
    }
  });

  it('says truncated for any unparseable or empty text of a cut-off response, but decodes text that parses', () => {
    const cut = { ok: false, error: 'truncated', message: 'the arguments were cut off before they were complete' };
    assert.deepEqual(decodeArgumentText('{"a" 1', { cutOff: true }).decoded, cut);
    assert.deepEqual(decodeArgumentText('', { cutOff: true }).decoded, cut);
    assert.deepEqual(decodeArgumentText('{"a":1}', { cutOff: true }).decoded, { ok: true, value: { a: 1 }, doubleEncoded: false });
  });

  it('does not decode text that went over the byte cap', () => {
    assert.deepEqual(decodeArgumentText('{"a":1}', { cutOff: false, tooLarge: true }).decoded, {
      ok: false,
      error: 'too_large',
      message: 'the arguments are too large',
    });
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
