import assert from 'node:assert/strict';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import {
  clipToTokens,
  countMessageTokens,
  countPromptTokens,
  countTextTokens,
  countToolsTokens,
  MESSAGE_OVERHEAD_TOKENS,
  REPLY_PRIMING_TOKENS,
} from '../../../src/core/context/tokenCounter';
import type { ChatMessage, ToolSpec } from '../../../src/core/llm/llmTypes';

describe('token counting (docs/design.md, “Context budget and memory”)', () => {
  it('counts BPE tokens of the o200k encoding, not characters ÷ 4', () => {
    assert.equal(countTextTokens('hello world'), 2);
    // Characters ÷ 4 is far off both ways: a run of one letter packs many per token, other
    // scripts take about one token per character or more.
    const repeated = 'hello '.repeat(700);
    assert.equal(countTextTokens(repeated), encode(repeated).length);
    assert.ok(countTextTokens(repeated) < repeated.length / 4 / 1.4, String(countTextTokens(repeated)));
    const greek = 'αβγδεζηθικλμνξοπρστυφχψω '.repeat(40);
    assert.equal(countTextTokens(greek), encode(greek).length);
    assert.ok(countTextTokens(greek) > (greek.length / 4) * 1.5, `${countTextTokens(greek)} tokens for ${greek.length} characters`);
    const code = 'const x = { a: [1, 2, 3], b: "z" };\n'.repeat(50);
    assert.equal(countTextTokens(code), encode(code).length);
    assert.equal(countTextTokens(''), 0);
  });

  it('treats special-token text in a tool output as plain text instead of throwing', () => {
    assert.ok(countTextTokens('before <|endoftext|> after') > 3);
  });

  it('counts long runs without spaces in pieces: fast, and never under the exact count', () => {
    const run = 'x'.repeat(3000);
    const exact = encode(run).length;
    assert.ok(countTextTokens(run) >= exact && countTextTokens(run) <= exact + 6, `${countTextTokens(run)} vs ${exact}`);
    const started = performance.now();
    const huge = `${'='.repeat(200_000)} and ${'a'.repeat(200_000)}`;
    assert.ok(countTextTokens(huge) > 0);
    assert.ok(countTextTokens(clipToTokens(huge, 100, 'both')) <= 100);
    assert.ok(performance.now() - started < 2000, `took ${Math.round(performance.now() - started)} ms`);
  });

  it('counts a message: content, each tool call (name, arguments, id) and the overhead', () => {
    const plain: ChatMessage = { role: 'user', content: 'hello world' };
    assert.equal(countMessageTokens(plain), MESSAGE_OVERHEAD_TOKENS + 2);
    const call: ChatMessage = {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.ts"}' } }],
    };
    const args = countTextTokens('{"path":"a.ts"}') + countTextTokens('read_file') + countTextTokens('c1');
    assert.ok(countMessageTokens(call) >= MESSAGE_OVERHEAD_TOKENS + args);
    const parts: ChatMessage = { role: 'user', content: [{ type: 'text', text: 'hello world' }] };
    assert.equal(countMessageTokens(parts), countMessageTokens(plain));
  });

  it('counts the whole prompt: messages, tool specs and the reply priming', () => {
    const messages: ChatMessage[] = [
      { role: 'system', content: 'be brief' },
      { role: 'user', content: 'hello world' },
    ];
    const tools: ToolSpec[] = [
      { type: 'function', function: { name: 'read_file', description: 'Read a file', parameters: { type: 'object', properties: {} } } },
    ];
    assert.equal(countToolsTokens(tools), countTextTokens(JSON.stringify(tools)));
    assert.equal(
      countPromptTokens(messages, tools),
      REPLY_PRIMING_TOKENS + countToolsTokens(tools) + countMessageTokens(messages[0]) + countMessageTokens(messages[1]),
    );
    assert.equal(countPromptTokens(messages), countPromptTokens(messages, []));
  });

  describe('clipToTokens', () => {
    const text = Array.from({ length: 400 }, (_, i) => `line ${i}: the quick brown fox`).join('\n');

    it('keeps text within the limit unchanged', () => {
      assert.equal(clipToTokens('short text', 100), 'short text');
    });

    it('keeps the start within the limit and says how many tokens were left out', () => {
      const clipped = clipToTokens(text, 100);
      assert.ok(countTextTokens(clipped) <= 100, `${countTextTokens(clipped)} tokens`);
      assert.ok(clipped.startsWith('line 0: the quick brown fox'));
      assert.match(clipped, /…\[\d+ more tokens truncated\]$/);
      const omitted = Number(/\[(\d+) more tokens/.exec(clipped)![1]);
      assert.ok(omitted > countTextTokens(text) - 100 && omitted < countTextTokens(text));
    });

    it("with keep 'both' keeps the start and the end", () => {
      const clipped = clipToTokens(text, 120, 'both');
      assert.ok(countTextTokens(clipped) <= 120);
      assert.ok(clipped.startsWith('line 0:'));
      assert.ok(clipped.endsWith('line 399: the quick brown fox'));
    });

    it('never splits a character across a token boundary', () => {
      const emoji = '🎉é中文'.repeat(300);
      for (const max of [20, 21, 22, 23, 50]) {
        const clipped = clipToTokens(emoji, max, 'both');
        assert.ok(!clipped.includes('\uFFFD'), `max ${max}: ${JSON.stringify(clipped.slice(0, 40))}`);
        assert.ok(countTextTokens(clipped) <= max);
      }
    });
  });
});
