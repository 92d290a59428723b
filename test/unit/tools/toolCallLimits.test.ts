import assert from 'node:assert/strict';
import { limitAssistantMessage, limitToolCalls, omittedNamesSample } from '../../../src/core/tools/toolCallLimits';

const calls = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `c${i}`, name: `tool_${i}` }));

describe('limitToolCalls', () => {
  it('keeps the first N in order and audits the rest (docs/design.md, “Limits”)', () => {
    const result = limitToolCalls(calls(25), 20);
    assert.deepEqual(
      result.kept.map((c) => c.id),
      calls(20).map((c) => c.id),
    );
    assert.deepEqual(
      result.omitted.map((c) => c.id),
      ['c20', 'c21', 'c22', 'c23', 'c24'],
    );
    assert.deepEqual(result.audit, {
      toolCallsTotal: 25,
      toolCallsExecuted: 20,
      toolCallsOmitted: 5,
      toolCallsLimit: 20,
      omittedNamesSample: ['tool_20', 'tool_21', 'tool_22', 'tool_23', 'tool_24'],
    });
  });

  it('keeps everything when the limit is null or not reached', () => {
    assert.equal(limitToolCalls(calls(50), null).kept.length, 50);
    assert.equal(limitToolCalls(calls(50), null).audit.toolCallsLimit, null);
    assert.equal(limitToolCalls(calls(3), 20).audit.toolCallsOmitted, 0);
  });

  it('uses a custom name accessor', () => {
    const result = limitToolCalls([{ fn: 'a' }, { fn: 'b' }], 1, (c) => c.fn);
    assert.deepEqual(result.audit.omittedNamesSample, ['b']);
  });

  it('samples at most 10 names, each cut at 200 UTF-8 bytes without splitting a character', () => {
    const names = Array.from({ length: 15 }, (_, i) => `${i}${'é'.repeat(150)}`);
    const sample = omittedNamesSample(names);
    assert.equal(sample.length, 10);
    for (const name of sample) {
      assert.ok(Buffer.byteLength(name, 'utf8') <= 200);
      assert.ok(!name.includes('\uFFFD'));
    }
    assert.equal(sample[0], `0${'é'.repeat(99)}`);
  });

  it('trims the replayed assistant message to the same N', () => {
    const message = { role: 'assistant' as const, content: null, tool_calls: calls(25) };
    const trimmed = limitAssistantMessage(message, 20);
    assert.equal(trimmed.tool_calls.length, 20);
    assert.equal(message.tool_calls.length, 25);
    assert.equal(limitAssistantMessage(message, null), message);
  });
});
