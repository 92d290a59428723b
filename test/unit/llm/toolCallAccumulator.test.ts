import assert from 'node:assert/strict';
import { createToolCallAccumulator, type AccumulatorResult } from '../../../src/core/llm/toolCallAccumulator';
import { chunk, type RawChunk } from '../../fixtures/providerShapes';

// The accumulator, rule by rule, fragment by fragment. Shapes seen in the wild are in
// providerShapes.test.ts; this file pins each routing and decoding rule on its own.

function run(chunks: unknown[], options: { batch?: number; maxArgumentBytes?: number; streamBroken?: boolean } = {}): AccumulatorResult {
  const accumulator = createToolCallAccumulator({ batch: options.batch, maxArgumentBytes: options.maxArgumentBytes });
  for (const c of chunks) accumulator.push(c);
  return accumulator.finish({ streamBroken: options.streamBroken });
}

const tc = (...entries: RawChunk[]): RawChunk => chunk({ tool_calls: entries });
const done = (reason = 'tool_calls'): RawChunk => chunk({}, reason);
const summary = (r: AccumulatorResult) => r.toolCalls.map((c) => ({ id: c.id, name: c.name, args: c.arguments, index: c.index }));

describe('toolCallAccumulator', () => {
  describe('LLM-layer parsing (docs/design.md, “Streamed tool-call accumulation”)', () => {
    it('parses a single tool call', () => {
      const r = run([tc({ index: 0, function: { name: 'get_weather', arguments: '{"city": "Beijing"}' } }), done()]);
      assert.equal(r.toolCalls.length, 1);
      assert.equal(r.toolCalls[0].name, 'get_weather');
      assert.deepEqual(r.toolCalls[0].arguments, { city: 'Beijing' });
      assert.equal(r.toolCalls[0].isComplete, true);
    });

    it('parses several tool calls of one delta, in order (every entry, not only [0])', () => {
      const r = run([
        tc(
          { index: 0, function: { name: 'get_weather', arguments: '{"city": "Beijing"}' } },
          { index: 1, function: { name: 'get_news', arguments: '{"topic": "tech"}' } },
        ),
        done(),
      ]);
      assert.deepEqual(
        r.toolCalls.map((c) => [c.name, c.arguments]),
        [
          ['get_weather', { city: 'Beijing' }],
          ['get_news', { topic: 'tech' }],
        ],
      );
    });

    it('concatenates streamed argument fragments', () => {
      const r = run([tc({ index: 0, function: { name: 'search', arguments: '{"qu' } }), tc({ index: 0, function: { arguments: 'ery": "test"}' } }), done()]);
      assert.deepEqual(r.toolCalls[0].arguments, { query: 'test' });
      assert.equal(r.toolCalls[0].rawArguments, '{"query": "test"}');
    });

    it('handles sparse indexes (0 and 2)', () => {
      const r = run([tc({ index: 0, function: { name: 'tool_a', arguments: '{}' } }, { index: 2, function: { name: 'tool_b', arguments: '{}' } }), done()]);
      assert.deepEqual(
        r.toolCalls.map((c) => [c.name, c.index]),
        [
          ['tool_a', 0],
          ['tool_b', 1],
        ],
      );
    });
  });

  describe('tool_call_id rules (docs/design.md, “Streamed tool-call accumulation”, Ids)', () => {
    it('keeps the provider id unchanged, even an odd one', () => {
      const r = run([tc({ index: 0, id: ' call abc/123 ', function: { name: 'a', arguments: '{}' } }), done()]);
      assert.equal(r.toolCalls[0].id, ' call abc/123 ');
      assert.equal(r.toolCalls[0].providerId, true);
    });

    it('gives id-less calls call_{batch}_{index}', () => {
      const r = run([tc({ index: 0, function: { name: 'tool_a', arguments: '{}' } }, { index: 1, function: { name: 'tool_b', arguments: '{}' } }), done()], {
        batch: 5,
      });
      assert.deepEqual(
        r.toolCalls.map((c) => [c.id, c.providerId]),
        [
          ['call_5_0', false],
          ['call_5_1', false],
        ],
      );
    });

    it('makes ids unique across batches of a run and reproducible for the same response sequence', () => {
      const response = [tc({ index: 0, function: { name: 'search', arguments: '{}' } }), done()];
      const round0 = run(response, { batch: 0 });
      const round1 = run(response, { batch: 1 });
      assert.equal(round0.toolCalls[0].id, 'call_0_0');
      assert.equal(round1.toolCalls[0].id, 'call_1_0');
      const replay = run(response, { batch: 1 });
      assert.deepEqual(summary(replay), summary(round1));
    });

    it('never duplicates a provider id that happens to look like a fallback id', () => {
      const r = run(
        [tc({ index: 0, function: { name: 'a', arguments: '{}' } }, { index: 1, id: 'call_7_0', function: { name: 'b', arguments: '{}' } }), done()],
        { batch: 7 },
      );
      const ids = r.toolCalls.map((c) => c.id);
      assert.equal(new Set(ids).size, 2, `ids ${ids.join(', ')}`);
      assert.equal(r.toolCalls[1].id, 'call_7_0');
    });

    it('never concatenates an id repeated on every chunk', () => {
      const r = run([
        tc({ index: 0, id: 'call_x', function: { name: 'a', arguments: '{"k"' } }),
        tc({ index: 0, id: 'call_x', function: { arguments: ':' } }),
        tc({ index: 0, id: 'call_x', function: { arguments: '1}' } }),
        done(),
      ]);
      assert.equal(r.toolCalls.length, 1);
      assert.equal(r.toolCalls[0].id, 'call_x');
      assert.deepEqual(r.toolCalls[0].arguments, { k: 1 });
    });
  });

  describe('routing', () => {
    it('routes by id before index: a known id wins over a wrong index', () => {
      const r = run([
        tc({ index: 0, id: 'a', function: { name: 'first', arguments: '{"x":' } }),
        tc({ index: 1, id: 'b', function: { name: 'second', arguments: '{"y":2}' } }),
        tc({ index: 1, id: 'a', function: { arguments: '1}' } }),
        done(),
      ]);
      assert.deepEqual(summary(r), [
        { id: 'a', name: 'first', args: { x: 1 }, index: 0 },
        { id: 'b', name: 'second', args: { y: 2 }, index: 1 },
      ]);
    });

    it('routes index-only fragments by index even when calls interleave', () => {
      const r = run([
        tc({ index: 0, id: 'a', function: { name: 'first', arguments: '' } }, { index: 1, id: 'b', function: { name: 'second', arguments: '' } }),
        tc({ index: 1, function: { arguments: '{"y":' } }),
        tc({ index: 0, function: { arguments: '{"x":' } }),
        tc({ index: 1, function: { arguments: '2}' } }),
        tc({ index: 0, function: { arguments: '1}' } }),
        done(),
      ]);
      assert.deepEqual(
        r.toolCalls.map((c) => c.arguments),
        [{ x: 1 }, { y: 2 }],
      );
    });

    it('sends fragments with neither id nor index to the call streaming last', () => {
      const r = run([
        tc({ id: 'g1', function: { name: 'first', arguments: '{"x":' } }),
        tc({ function: { arguments: '1}' } }),
        tc({ id: 'g2', function: { name: 'second', arguments: '{"y"' } }),
        tc({ function: { arguments: ':2}' } }),
        done('stop'),
      ]);
      assert.deepEqual(summary(r), [
        { id: 'g1', name: 'first', args: { x: 1 }, index: 0 },
        { id: 'g2', name: 'second', args: { y: 2 }, index: 1 },
      ]);
    });

    it('starts a call for a first fragment without id or index', () => {
      const r = run([tc({ function: { name: 'solo', arguments: '{"a":true}' } }), done()], { batch: 2 });
      assert.deepEqual(summary(r), [{ id: 'call_2_0', name: 'solo', args: { a: true }, index: 0 }]);
    });

    it('attaches an id that arrives on a later fragment to the call (first fragment without id kept)', () => {
      const r = run([tc({ index: 0, function: { name: 'ls', arguments: '{"p":' } }), tc({ index: 0, id: 'late_id', function: { arguments: '"."}' } }), done()]);
      assert.deepEqual(summary(r), [{ id: 'late_id', name: 'ls', args: { p: '.' }, index: 0 }]);
      assert.equal(r.toolCalls[0].providerId, true);
    });

    it('does not merge a new id into a call that already has another id on the same index', () => {
      const r = run([
        tc({ index: 0, id: 'a', function: { name: 'one', arguments: '{"n":1}' } }),
        tc({ index: 0, id: 'b', function: { name: 'two', arguments: '{"n":' } }),
        tc({ index: 0, function: { arguments: '2}' } }),
        done(),
      ]);
      assert.deepEqual(summary(r), [
        { id: 'a', name: 'one', args: { n: 1 }, index: 0 },
        { id: 'b', name: 'two', args: { n: 2 }, index: 1 },
      ]);
      assert.ok(
        r.notes.some((n) => n.includes('index 0 was already used')),
        r.notes.join('\n'),
      );
    });

    it('a call whose index collided takes the next free index, so a later fragment with that index finds it', () => {
      const r = run([
        tc({ index: 0, id: 'a', function: { name: 'one', arguments: '{"n":1}' } }),
        tc({ index: 0, id: 'b', function: { name: 'two', arguments: '{"n":' } }),
        tc({ index: 1, function: { arguments: '2}' } }),
        done(),
      ]);
      assert.deepEqual(
        r.toolCalls.map((c) => c.arguments),
        [{ n: 1 }, { n: 2 }],
      );
    });

    it('starts a new call when argument text arrives after a complete JSON value (no id, same index)', () => {
      const r = run([
        tc({ index: 0, function: { name: 'read', arguments: '{"p":"a"}' } }),
        tc({ index: 0, function: { name: 'read', arguments: '{"p":"b"}' } }),
        done(),
      ]);
      assert.deepEqual(
        r.toolCalls.map((c) => c.arguments),
        [{ p: 'a' }, { p: 'b' }],
      );
    });

    it('starts a new call when a different name arrives after a complete call (no id, no index)', () => {
      const r = run([tc({ function: { name: 'a', arguments: '{}' } }), tc({ function: { name: 'b' } }), tc({ function: { arguments: '{"z":0}' } }), done()]);
      assert.deepEqual(
        r.toolCalls.map((c) => [c.name, c.arguments]),
        [
          ['a', {}],
          ['b', { z: 0 }],
        ],
      );
    });

    it('keeps two id-less entries of one delta apart even with the same index', () => {
      const r = run([tc({ index: 0, function: { name: 'a', arguments: '{"x":' } }, { index: 0, function: { name: 'b', arguments: '{"y":1}' } }), done()]);
      assert.deepEqual(
        r.toolCalls.map((c) => c.name),
        ['a', 'b'],
      );
      assert.equal(r.toolCalls[0].isComplete, false, 'the first entry was cut; it is not completed with the second entry');
    });

    it('treats an empty-string or null id as no id', () => {
      const r = run([
        tc({ index: 0, id: 'c1', function: { name: 'a', arguments: '{"v":' } }),
        tc({ index: 0, id: '', function: { arguments: '1' } }),
        tc({ index: 0, id: null, function: { arguments: '}' } }),
        done(),
      ]);
      assert.deepEqual(summary(r), [{ id: 'c1', name: 'a', args: { v: 1 }, index: 0 }]);
    });

    it('executes in index order, not arrival order', () => {
      const r = run([
        tc({ index: 1, id: 'late', function: { name: 'second', arguments: '{}' } }),
        tc({ index: 0, id: 'early', function: { name: 'first', arguments: '{}' } }),
        done(),
      ]);
      assert.deepEqual(
        r.toolCalls.map((c) => [c.id, c.index]),
        [
          ['early', 0],
          ['late', 1],
        ],
      );
    });
  });

  describe('index normalisation', () => {
    it('reads a numeric string as a number', () => {
      const r = run([tc({ index: '0', id: 'a', function: { name: 'x', arguments: '{"a":' } }), tc({ index: 0, function: { arguments: '1}' } }), done()]);
      assert.equal(r.toolCalls.length, 1);
      assert.deepEqual(r.toolCalls[0].arguments, { a: 1 });
    });

    it('never merges negative, fractional or non-numeric indexes with integer ones or each other', () => {
      const r = run([
        tc({ index: 0, function: { name: 'zero', arguments: '{"i":0}' } }),
        tc({ index: -1, function: { name: 'minus', arguments: '{"i":-1}' } }),
        tc({ index: 0.5, function: { name: 'half', arguments: '{"i":0.5}' } }),
        tc({ index: 'abc', function: { name: 'text', arguments: '{"i":"abc"}' } }),
        tc({ index: { weird: true }, function: { name: 'object', arguments: '{"i":"obj"}' } }),
        done(),
      ]);
      // Ordered by value where the odd index has one, otherwise last in arrival order.
      assert.deepEqual(
        r.toolCalls.map((c) => [c.name, c.index, c.isComplete]),
        [
          ['minus', 0, true],
          ['zero', 1, true],
          ['half', 2, true],
          ['text', 3, true],
          ['object', 4, true],
        ],
      );
      assert.equal(new Set(r.toolCalls.map((c) => c.id)).size, 5);
    });

    it('groups fragments that share the same odd index', () => {
      const r = run([tc({ index: -1, id: 't1', function: { name: 'w', arguments: '{"c":' } }), tc({ index: -1, function: { arguments: '"x"}' } }), done()]);
      assert.deepEqual(summary(r), [{ id: 't1', name: 'w', args: { c: 'x' }, index: 0 }]);
    });
  });

  describe('shapes of names and arguments', () => {
    it('takes a call that arrives whole in one chunk', () => {
      const r = run([tc({ index: 0, id: 'w', type: 'function', function: { name: 'weather', arguments: '{"location":"SF"}' } }), done()]);
      assert.deepEqual(summary(r), [{ id: 'w', name: 'weather', args: { location: 'SF' }, index: 0 }]);
    });

    it('takes a name that arrives after the first fragment', () => {
      const r = run([
        tc({ index: 0, id: 'n', type: 'function' }),
        tc({ index: 0, function: { arguments: '{"a":' } }),
        tc({ index: 0, function: { name: 'late_name', arguments: '1}' } }),
        done(),
      ]);
      assert.deepEqual(summary(r), [{ id: 'n', name: 'late_name', args: { a: 1 }, index: 0 }]);
    });

    it('ignores a name repeated on every fragment', () => {
      const r = run([
        tc({ index: 0, id: 'r', function: { name: 'rep', arguments: '{' } }),
        tc({ index: 0, id: 'r', function: { name: 'rep', arguments: '}' } }),
        done(),
      ]);
      assert.equal(r.toolCalls[0].name, 'rep');
    });

    it('stores object arguments as JSON text for history', () => {
      const r = run([tc({ index: 0, id: 'o', function: { name: 'calc', arguments: { expression: '2 + 2', n: [1, 2] } } }), done()]);
      assert.equal(r.toolCalls[0].rawArguments, '{"expression":"2 + 2","n":[1,2]}');
      assert.deepEqual(r.toolCalls[0].arguments, { expression: '2 + 2', n: [1, 2] });
      assert.ok(r.notes.some((n) => n.includes('instead of a string')));
    });

    it('parses double-encoded arguments a second time and notes it', () => {
      const r = run([tc({ index: 0, id: 'd', function: { name: 'f', arguments: JSON.stringify(JSON.stringify({ city: 'Beijing' })) } }), done()]);
      assert.equal(r.toolCalls[0].isComplete, true);
      assert.equal(r.toolCalls[0].doubleEncoded, true);
      assert.deepEqual(r.toolCalls[0].arguments, { city: 'Beijing' });
      assert.equal(r.toolCalls[0].rawArguments, JSON.stringify(JSON.stringify({ city: 'Beijing' })));
      assert.ok(
        r.notes.some((n) => n.includes('double-encoded')),
        r.notes.join('\n'),
      );
    });

    it('adds nothing for trailing empty deltas', () => {
      const r = run([
        tc({ index: 0, id: 'e', function: { name: 'f', arguments: '{"a":1}' } }),
        tc({ index: 0, function: { arguments: '' } }),
        tc({ index: 0 }),
        tc({ index: 1, function: {} }),
        chunk({}),
        chunk({ tool_calls: [] }),
        done(),
      ]);
      assert.deepEqual(summary(r), [{ id: 'e', name: 'f', args: { a: 1 }, index: 0 }]);
      assert.equal(r.toolCalls[0].rawArguments, '{"a":1}');
    });

    it('ignores a repeat of the complete arguments sent under the same id (duplicate summary), verbatim or double-encoded', () => {
      for (const repeat of ['{"a":1}', JSON.stringify('{"a":1}'), '{ "a" : 1 }']) {
        const r = run([
          tc({ index: 0, id: 's', function: { name: 'f', arguments: '{"a":' } }),
          tc({ index: 0, id: 's', function: { arguments: '1}' } }),
          done(),
          tc({ index: 0, id: 's', function: { name: 'f', arguments: repeat } }),
        ]);
        assert.equal(r.toolCalls.length, 1, repeat);
        assert.equal(r.toolCalls[0].rawArguments, '{"a":1}', repeat);
        assert.ok(
          r.notes.some((n) => n.includes('duplicate summary')),
          r.notes.join('\n'),
        );
      }
    });

    it('ignores, with a note, different text sent under the same id after the arguments were complete', () => {
      const r = run([
        tc({ index: 0, id: 's', function: { name: 'f', arguments: '{"a":1}' } }),
        tc({ index: 0, id: 's', function: { arguments: '{"b":2}' } }),
        done(),
      ]);
      assert.deepEqual(r.toolCalls[0].arguments, { a: 1 });
      assert.ok(
        r.notes.some((n) => n.includes('after its arguments were already complete')),
        r.notes.join('\n'),
      );
    });

    it('reads empty arguments of a finished response as {}', () => {
      const r = run([tc({ index: 0, id: 'z', function: { name: 'now', arguments: '' } }), done()]);
      assert.equal(r.toolCalls[0].isComplete, true);
      assert.deepEqual(r.toolCalls[0].arguments, {});
      assert.equal(r.toolCalls[0].rawArguments, '');
    });

    it('reads the legacy function_call delta as a call of its own', () => {
      const r = run([chunk({ function_call: { name: 'legacy', arguments: '{"q":' } }), chunk({ function_call: { arguments: '1}' } }), done('function_call')], {
        batch: 4,
      });
      assert.deepEqual(summary(r), [{ id: 'call_4_0', name: 'legacy', args: { q: 1 }, index: 0 }]);
    });

    it('reads a non-streamed chat.completion (message instead of delta)', () => {
      const completion = {
        id: 'chatcmpl-1',
        object: 'chat.completion',
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: 'Calling two tools.',
              tool_calls: [
                { id: 'm1', type: 'function', function: { name: 'a', arguments: '{"x":1}' } },
                { id: 'm2', type: 'function', function: { name: 'b', arguments: { y: 2 } } },
              ],
            },
            finish_reason: 'tool_calls',
          },
        ],
        usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 },
      };
      const r = run([completion]);
      assert.equal(r.content, 'Calling two tools.');
      assert.deepEqual(summary(r), [
        { id: 'm1', name: 'a', args: { x: 1 }, index: 0 },
        { id: 'm2', name: 'b', args: { y: 2 }, index: 1 },
      ]);
      assert.deepEqual(r.usage, { promptTokens: 3, completionTokens: 4 });
      assert.equal(r.finishReason, 'tool_calls');
    });
  });

  describe('finish_reason, is_complete, raw_arguments', () => {
    it('records finish_reason on every call', () => {
      const r = run([tc({ index: 0, function: { name: 'a', arguments: '{}' } }, { index: 1, function: { name: 'b', arguments: '{}' } }), done('tool_calls')]);
      assert.deepEqual(
        r.toolCalls.map((c) => c.finishReason),
        ['tool_calls', 'tool_calls'],
      );
    });

    it('marks arguments that never became JSON as not complete (invalid_json), keeping the raw text', () => {
      const r = run([
        tc({ index: 0, id: 'bad', function: { name: 'a', arguments: '{"x": 1,' } }),
        tc({ index: 1, id: 'ok', function: { name: 'b', arguments: '{}' } }),
        done(),
      ]);
      assert.equal(r.toolCalls[0].isComplete, false);
      assert.equal(r.toolCalls[0].parseError, 'invalid_json');
      assert.equal(r.toolCalls[0].arguments, undefined);
      assert.equal(r.toolCalls[0].rawArguments, '{"x": 1,');
      assert.equal(r.toolCalls[1].isComplete, true, 'the rest of the batch is unaffected');
    });

    it("reports 'truncated' when finish_reason is length", () => {
      const r = run([tc({ index: 0, id: 't', function: { name: 'w', arguments: '{"content":"abc' } }), done('length')]);
      assert.equal(r.toolCalls[0].parseError, 'truncated');
      assert.equal(r.toolCalls[0].finishReason, 'length');
    });

    it("reports 'truncated' when the stream broke off, even for empty arguments", () => {
      const r = run([tc({ index: 0, id: 't', function: { name: 'w', arguments: '{"a":' } }, { index: 1, id: 'u', function: { name: 'v', arguments: '' } })], {
        streamBroken: true,
      });
      assert.deepEqual(
        r.toolCalls.map((c) => [c.isComplete, c.parseError]),
        [
          [false, 'truncated'],
          [false, 'truncated'],
        ],
      );
      assert.equal(r.finishReason, null);
    });

    it("reports 'too_large' over the byte cap, counting UTF-8 bytes, and keeps memory bounded", () => {
      const big = run(
        [
          tc({ index: 0, id: 'big', function: { name: 'w', arguments: '{"a":"' } }),
          ...Array.from({ length: 50 }, () => tc({ index: 0, function: { arguments: 'xxxxxxxxxx' } })),
          tc({ index: 0, function: { arguments: '"}' } }),
          done(),
        ],
        { maxArgumentBytes: 64 },
      );
      assert.equal(big.toolCalls[0].isComplete, false);
      assert.equal(big.toolCalls[0].parseError, 'too_large');
      assert.ok(big.toolCalls[0].rawArguments.length <= 64, `kept ${big.toolCalls[0].rawArguments.length} chars`);
      // 7 characters but 12 bytes: over a 10-byte cap.
      const utf8 = run([tc({ index: 0, id: 'u', function: { name: 'w', arguments: '"ééééé"' } }), done()], { maxArgumentBytes: 10 });
      assert.equal(utf8.toolCalls[0].parseError, 'too_large');
      const fits = run([tc({ index: 0, id: 'f', function: { name: 'w', arguments: '{"a":"é"}' } }), done()], { maxArgumentBytes: 10 });
      assert.equal(fits.toolCalls[0].isComplete, true);
    });

    it('marks arguments that are JSON but not an object as invalid_json', () => {
      const r = run([
        tc({ index: 0, id: 'arr', function: { name: 'a', arguments: '[1,2]' } }),
        tc({ index: 1, id: 'num', function: { name: 'b', arguments: '42' } }),
        done(),
      ]);
      assert.deepEqual(
        r.toolCalls.map((c) => c.parseError),
        ['invalid_json', 'invalid_json'],
      );
    });
  });

  describe('dropped names (docs/design.md, “Streamed tool-call accumulation”, Names)', () => {
    it('drops empty and symbol-only names, keeps the rest of the batch, reports the names', () => {
      const r = run([
        tc({ index: 0, id: 'g', function: { name: '⚙', arguments: '{}' } }),
        tc({ index: 1, id: 'k', function: { name: 'keep_me', arguments: '{}' } }),
        tc({ index: 2, id: 'e', function: { name: '', arguments: '{"x":1}' } }),
        tc({ index: 3, id: 's', function: { name: '--- !', arguments: '{}' } }),
        tc({ index: 4, id: 'u', function: { name: 'читать', arguments: '{}' } }),
        done(),
      ]);
      assert.deepEqual(
        r.toolCalls.map((c) => [c.name, c.index]),
        [
          ['keep_me', 0],
          ['читать', 1],
        ],
      );
      assert.deepEqual(r.droppedToolNames, ['⚙', '', '--- !']);
    });
  });

  describe('content, usage and robustness', () => {
    it('accumulates content and the last usage', () => {
      const r = run([
        chunk({ content: 'Hel' }),
        chunk({ content: 'lo' }),
        chunk({ content: null }),
        chunk({}, 'stop'),
        { choices: [], usage: { prompt_tokens: 9, completion_tokens: 2 } },
      ]);
      assert.equal(r.content, 'Hello');
      assert.deepEqual(r.usage, { promptTokens: 9, completionTokens: 2 });
      assert.deepEqual(r.toolCalls, []);
    });

    it("reads the prompt tokens served from the provider's cache, in OpenAI's and DeepSeek's shapes", () => {
      const openAi = run([
        chunk({ content: 'x' }, 'stop'),
        { choices: [], usage: { prompt_tokens: 900, completion_tokens: 2, prompt_tokens_details: { cached_tokens: 768 } } },
      ]);
      assert.deepEqual(openAi.usage, { promptTokens: 900, completionTokens: 2, cachedPromptTokens: 768 });
      // As DeepSeek sends it (recorded from deepseek-reasoner): hit and miss counts beside the totals.
      const deepSeek = run([
        chunk({ content: 'x' }, 'stop'),
        { choices: [], usage: { prompt_tokens: 340, completion_tokens: 2, prompt_cache_hit_tokens: 320, prompt_cache_miss_tokens: 20 } },
      ]);
      assert.deepEqual(deepSeek.usage, { promptTokens: 340, completionTokens: 2, cachedPromptTokens: 320 });
    });

    it('reads the cached tokens of the other shapes: DeepSeek beside an empty details object, gateways for Anthropic, Moonshot', () => {
      const usageOf = (usage: Record<string, unknown>) => run([chunk({ content: 'x' }, 'stop'), { choices: [], usage }]).usage;
      // A details object without cached_tokens (or with 0) must not hide DeepSeek's own count.
      assert.deepEqual(usageOf({ prompt_tokens: 340, completion_tokens: 2, prompt_tokens_details: { audio_tokens: 0 }, prompt_cache_hit_tokens: 320 }), {
        promptTokens: 340,
        completionTokens: 2,
        cachedPromptTokens: 320,
      });
      assert.deepEqual(usageOf({ prompt_tokens: 340, completion_tokens: 2, prompt_tokens_details: { cached_tokens: 0 }, prompt_cache_hit_tokens: 256 }), {
        promptTokens: 340,
        completionTokens: 2,
        cachedPromptTokens: 256,
      });
      // Anthropic's models through LiteLLM or OpenRouter.
      assert.deepEqual(usageOf({ prompt_tokens: 2_000, completion_tokens: 9, cache_read_input_tokens: 1_536, cache_creation_input_tokens: 400 }), {
        promptTokens: 2_000,
        completionTokens: 9,
        cachedPromptTokens: 1_536,
      });
      assert.deepEqual(usageOf({ prompt_tokens: 700, completion_tokens: 3, cached_tokens: 512 }), {
        promptTokens: 700,
        completionTokens: 3,
        cachedPromptTokens: 512,
      });
      // Nothing cached, or nonsense: no cachedPromptTokens at all.
      assert.deepEqual(usageOf({ prompt_tokens: 700, completion_tokens: 3, prompt_tokens_details: { cached_tokens: 0 }, prompt_cache_hit_tokens: 0 }), {
        promptTokens: 700,
        completionTokens: 3,
      });
      assert.deepEqual(usageOf({ prompt_tokens: 700, completion_tokens: 3, cache_read_input_tokens: '512', cached_tokens: -4 }), {
        promptTokens: 700,
        completionTokens: 3,
      });
    });

    it('only reads the first choice', () => {
      const r = run([
        {
          choices: [
            { index: 0, delta: { content: 'A' } },
            { index: 1, delta: { content: 'B', tool_calls: [{ index: 0, function: { name: 'x', arguments: '{}' } }] } },
          ],
        },
      ]);
      assert.equal(r.content, 'A');
      assert.equal(r.toolCalls.length, 0);
    });

    it('never throws on garbage, ignores it with a note, and keeps the good parts', () => {
      const garbage: unknown[] = [
        null,
        42,
        'data: nonsense',
        [],
        { choices: 'nope' },
        { choices: [null, 7, { delta: 'string delta' }, { delta: { tool_calls: 'not an array' } }] },
        { choices: [{ delta: { tool_calls: [null, 5, 'x', { index: 0, function: 'not an object' }] } }] },
        { choices: [{ delta: { tool_calls: [{ index: 0, id: { nested: true }, function: { name: 12, arguments: 3.5 } }] } }] },
        tc({ index: 9, id: 'good', function: { name: 'survivor', arguments: '{"ok":true}' } }),
        { choices: [{ delta: { content: 5, tool_calls: [{ index: NaN, function: { arguments: undefined } }] } }] },
        { choices: [{ finish_reason: 42 }] },
        done(),
      ];
      const accumulator = createToolCallAccumulator({ batch: 1 });
      for (const g of garbage) assert.doesNotThrow(() => accumulator.push(g));
      const r = accumulator.finish();
      const survivor = r.toolCalls.find((c) => c.name === 'survivor');
      assert.ok(survivor, `calls: ${JSON.stringify(r.toolCalls)}`);
      assert.deepEqual(survivor.arguments, { ok: true });
      assert.ok(r.notes.length >= 5, r.notes.join('\n'));
      assert.equal(r.finishReason, 'tool_calls');
    });

    it('caps the number of notes', () => {
      const r = run(Array.from({ length: 500 }, () => 'junk'));
      assert.ok(r.notes.length <= 101);
      assert.match(r.notes[r.notes.length - 1], /and 400 more/);
    });

    it('finish is idempotent and pushes after it are ignored', () => {
      const accumulator = createToolCallAccumulator();
      accumulator.push(tc({ index: 0, id: 'a', function: { name: 'x', arguments: '{}' } }));
      const first = accumulator.finish();
      accumulator.push(tc({ index: 1, id: 'b', function: { name: 'y', arguments: '{}' } }));
      assert.equal(accumulator.finish(), first);
      assert.equal(first.toolCalls.length, 1);
    });

    it('exposes the finish_reason seen so far and the chunk count', () => {
      const accumulator = createToolCallAccumulator();
      accumulator.push(chunk({ content: 'x' }));
      assert.equal(accumulator.finishReason, null);
      accumulator.push(done('stop'));
      assert.equal(accumulator.finishReason, 'stop');
      assert.equal(accumulator.chunkCount, 2);
    });
  });
});
