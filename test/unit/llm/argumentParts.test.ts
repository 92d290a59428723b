import assert from 'node:assert/strict';
import { decodeArguments } from '../../../src/core/llm/argumentDecoding';
import { hasNonWhitespace, newArgumentScan, scanArgumentText } from '../../../src/core/llm/argumentScanner';
import { isUsableToolName } from '../../../src/core/llm/isUsableToolName';
import { normalizeToolCallIndex, opaqueSortKey } from '../../../src/core/llm/toolCallIndex';

function scanAll(pieces: string[]) {
  const scan = newArgumentScan();
  for (const p of pieces) scanArgumentText(scan, p);
  return scan;
}

describe('argument scanner', () => {
  it('sees an object close only at its outer brace, across fragments', () => {
    assert.equal(scanAll(['{"a":', '{"b":[1,', '2]}']).closed, false);
    assert.equal(scanAll(['{"a":', '{"b":[1,', '2]}', '}']).closed, true);
  });

  it('ignores braces and escaped quotes inside strings', () => {
    assert.equal(scanAll(['{"t":"}{ \\" ]', '"']).closed, false);
    assert.equal(scanAll(['{"t":"}{ \\" ]"', '}']).closed, true);
    assert.equal(scanAll(['{"t":"a\\\\', '"}']).closed, true, 'an escaped backslash does not escape the quote');
  });

  it('sees a top-level string (double-encoded arguments) close', () => {
    assert.equal(scanAll(['"{\\"a\\":', '1}"']).closed, true);
  });

  it('counts UTF-8 bytes, surrogate pairs included', () => {
    assert.equal(scanAll(['a', 'é', '花', '🚀']).bytes, 1 + 2 + 3 + 4);
  });

  it('hasNonWhitespace', () => {
    assert.equal(hasNonWhitespace(' \n\t\r'), false);
    assert.equal(hasNonWhitespace(' x'), true);
  });
});

describe('tool call index normalisation', () => {
  it('keeps non-negative integers and numeric strings', () => {
    assert.equal(normalizeToolCallIndex(0), 0);
    assert.equal(normalizeToolCallIndex(3), 3);
    assert.equal(normalizeToolCallIndex('2'), 2);
    assert.equal(normalizeToolCallIndex(' 4 '), 4);
    assert.equal(normalizeToolCallIndex(1.0), 1);
  });

  it('reads missing and null as no index', () => {
    assert.equal(normalizeToolCallIndex(undefined), undefined);
    assert.equal(normalizeToolCallIndex(null), undefined);
  });

  it('gives odd values a key of their own that never equals an integer', () => {
    for (const odd of [-1, 1.5, 'abc', '-1', '1.5', true, { a: 1 }, Number.MAX_SAFE_INTEGER + 2]) {
      const key = normalizeToolCallIndex(odd);
      assert.equal(typeof key, 'string', JSON.stringify(odd));
    }
    assert.equal(normalizeToolCallIndex(-1), normalizeToolCallIndex(-1));
    assert.notEqual(normalizeToolCallIndex(-1), normalizeToolCallIndex(1.5));
  });

  it('sorts odd numeric keys by value, the rest last', () => {
    assert.equal(opaqueSortKey(normalizeToolCallIndex(-1) as string), -1);
    assert.equal(opaqueSortKey(normalizeToolCallIndex(2.5) as string), 2.5);
    assert.equal(opaqueSortKey(normalizeToolCallIndex('abc') as string), Number.POSITIVE_INFINITY);
  });
});

describe('argument decoding', () => {
  it('accepts objects, second-parses double encoding, rejects the rest', () => {
    assert.deepEqual(decodeArguments('{"a":1}', false), { isComplete: true, arguments: { a: 1 } });
    const dbl = decodeArguments(JSON.stringify('{"a":1}'), false);
    assert.equal(dbl.doubleEncoded, true);
    assert.deepEqual(dbl.arguments, { a: 1 });
    assert.equal(decodeArguments(JSON.stringify('not json'), false).parseError, 'invalid_json');
    assert.equal(decodeArguments('null', false).parseError, 'invalid_json');
    assert.equal(decodeArguments('{"a":', false).parseError, 'invalid_json');
    assert.equal(decodeArguments('{"a":', true).parseError, 'truncated');
    assert.deepEqual(decodeArguments('  ', false).arguments, {});
    assert.equal(decodeArguments('', true).parseError, 'truncated');
  });
});

describe('usable tool names (docs/design.md, “Streamed tool-call accumulation”, Names)', () => {
  it('needs a letter or digit in any script', () => {
    for (const good of ['read', 'read_file', 'a', '9', 'читать', '読む', 'get-weather']) assert.equal(isUsableToolName(good), true, good);
    for (const bad of ['', '   ', '⚙', '⚙️', '---', '!!', '🙂', '_']) assert.equal(isUsableToolName(bad), false, bad);
  });
});
