import assert from 'node:assert/strict';
import { uniqueCallIds } from '../../../src/core/agent/uniqueCallIds';
import type { AccumulatedToolCall } from '../../../src/core/llm/llmTypes';

const call = (id: string, index: number) => ({ id, index }) as AccumulatedToolCall;

describe('uniqueCallIds', () => {
  it('keeps ids that are new, the same objects', () => {
    const calls = [call('a', 0), call('b', 1)];
    const out = uniqueCallIds(calls, new Set(['x']), 1);
    assert.equal(out[0], calls[0]);
    assert.deepEqual(
      out.map((c) => c.id),
      ['a', 'b'],
    );
  });

  it('renames an id used earlier in the step, and repeats within one response', () => {
    const out = uniqueCallIds([call('call_0', 0), call('call_0', 1), call('call_0_t3', 2)], new Set(['call_0']), 3);
    assert.deepEqual(
      out.map((c) => c.id),
      ['call_0_t3', 'call_0_t3_1', 'call_0_t3_t3'],
    );
    assert.equal(new Set(out.map((c) => c.id)).size, 3);
  });
});
