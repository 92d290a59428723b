import assert from 'node:assert/strict';
import type { AccumulatedToolCall } from '../../../src/core/llm/llmTypes';
import type { ProviderShape } from '../../fixtures/providerShapes';

/** What both an accumulator result and a ChatResponse have. */
export interface IngestedResponse {
  content: string;
  toolCalls: AccumulatedToolCall[];
  droppedToolNames: string[];
  finishReason: string | null;
  usage?: { promptTokens: number; completionTokens: number };
}

/** Asserts that `result` is exactly what `shape.expect` says, with fallback ids for `batch`. */
export function assertMatchesShape(result: IngestedResponse, shape: ProviderShape, batch: number): void {
  const names = result.toolCalls.map((c) => `${c.name}(${c.rawArguments})`).join(', ');
  assert.equal(result.toolCalls.length, shape.expect.calls.length, `${shape.name}: expected ${shape.expect.calls.length} calls, got [${names}]`);
  shape.expect.calls.forEach((want, i) => {
    const got = result.toolCalls[i];
    const where = `${shape.name}: call ${i}`;
    assert.equal(got.index, i, `${where} index`);
    assert.equal(got.name, want.name, `${where} name`);
    assert.equal(got.id, want.id ?? `call_${batch}_${i}`, `${where} id`);
    assert.equal(got.providerId, want.id !== undefined, `${where} providerId`);
    const complete = want.isComplete ?? true;
    assert.equal(got.isComplete, complete, `${where} isComplete (raw ${JSON.stringify(got.rawArguments)}, parseError ${got.parseError})`);
    if (complete) {
      assert.deepEqual(got.arguments, want.arguments, `${where} arguments`);
      assert.equal(got.parseError, undefined, `${where} parseError`);
      // What history stores must itself be JSON (objects were stringified).
      assert.doesNotThrow(() => JSON.parse(got.rawArguments === '' ? '{}' : got.rawArguments), `${where} rawArguments is JSON`);
    } else {
      assert.equal(got.arguments, undefined, `${where} has no arguments`);
      assert.equal(got.parseError, want.parseError, `${where} parseError`);
    }
    assert.equal(got.doubleEncoded ?? false, want.doubleEncoded ?? false, `${where} doubleEncoded`);
    assert.equal(got.finishReason, shape.expect.finishReason, `${where} finishReason`);
  });
  assert.deepEqual(result.droppedToolNames, shape.expect.droppedToolNames ?? [], `${shape.name}: droppedToolNames`);
  assert.equal(result.finishReason, shape.expect.finishReason, `${shape.name}: finishReason`);
  if (shape.expect.content !== undefined) assert.equal(result.content, shape.expect.content, `${shape.name}: content`);
  if (shape.expect.usage !== undefined) assert.deepEqual(result.usage, shape.expect.usage, `${shape.name}: usage`);
}
