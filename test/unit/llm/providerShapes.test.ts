import assert from 'node:assert/strict';
import { createToolCallAccumulator } from '../../../src/core/llm/toolCallAccumulator';
import { providerShapes, type ProviderShape, type RawChunk } from '../../fixtures/providerShapes';
import { assertMatchesShape } from './shapeAssertions';

// Every provider shape of the corpus, fed chunk by chunk to the accumulator.

function ingest(chunks: RawChunk[], batch: number) {
  const accumulator = createToolCallAccumulator({ batch });
  for (const c of chunks) accumulator.push(c);
  return accumulator.finish();
}

/**
 * The same stream sent by a slower provider: every single-entry string argument fragment before the
 * finish chunk is split into one-character fragments that carry only the index (as OpenAI sends
 * continuations). The result must not change.
 */
function oneCharFragments(shape: ProviderShape): RawChunk[] {
  const out: RawChunk[] = [];
  let finished = false;
  for (const c of shape.chunks) {
    const choice = Array.isArray(c.choices) ? (c.choices[0] as RawChunk | undefined) : undefined;
    const delta = choice?.delta as RawChunk | undefined;
    const calls = delta?.tool_calls;
    if (finished || !choice || !delta || !Array.isArray(calls) || calls.length !== 1) {
      out.push(c);
      if (choice?.finish_reason) finished = true;
      continue;
    }
    const entry = calls[0] as RawChunk;
    const fn = entry.function as RawChunk | undefined;
    const args = fn?.arguments;
    if (typeof args !== 'string' || args.length < 2 || choice.finish_reason) {
      out.push(c);
      if (choice.finish_reason) finished = true;
      continue;
    }
    const pieces = [...args];
    out.push({ ...c, choices: [{ ...choice, delta: { ...delta, tool_calls: [{ ...entry, function: { ...fn, arguments: pieces[0] } }] } }] });
    for (const piece of pieces.slice(1)) {
      const continuation: RawChunk = { function: { arguments: piece } };
      if ('index' in entry) continuation.index = entry.index;
      out.push({ ...c, choices: [{ index: 0, delta: { tool_calls: [continuation] }, finish_reason: null }] });
    }
  }
  return out;
}

describe('provider shapes corpus (accumulator, chunk by chunk)', () => {
  it('has a source for every shape and unique names', () => {
    const names = new Set<string>();
    for (const shape of providerShapes) {
      assert.ok(shape.source.trim().length > 0, `${shape.name} names no source`);
      assert.ok(!names.has(shape.name), `duplicate shape name ${shape.name}`);
      names.add(shape.name);
    }
    assert.ok(providerShapes.length >= 25, `only ${providerShapes.length} shapes`);
  });

  for (const shape of providerShapes) {
    it(`${shape.name} [${shape.source}]`, () => {
      assertMatchesShape(ingest(shape.chunks, 7), shape, 7);
    });
  }

  describe('the same shapes with one-character argument fragments', () => {
    for (const shape of providerShapes) {
      it(shape.name, () => {
        const fragmented = oneCharFragments(shape);
        assertMatchesShape(ingest(fragmented, 3), shape, 3);
      });
    }
  });
});
