import assert from 'node:assert/strict';
import type { RunEvent } from '../../../src/core/plan/events';
import type { ToolCallRecord } from '../../../src/core/plan/planTypes';
import { PlanStore } from '../../../webview/store';
import { clipReasoning, MAX_REASONING_CHARS, noteReasoningEvent, placeReasoning, reasoningHeading, type StepReasoning } from '../../../webview/reasoningTurns';

// The model's reasoning in the panel's tool history: one entry per executor turn of a step, folded
// under that turn (before its first call, or after the calls for the answer), plain text and clipped.

let seq = 0;
function request(stepId: string | undefined, reasoning: string | undefined, extra: Partial<Extract<RunEvent, { type: 'llm_request' }>> = {}): RunEvent {
  return {
    type: 'llm_request',
    seq: ++seq,
    time: 1000 + seq,
    purpose: 'executor',
    stepId,
    requestedModel: 'm',
    usedModel: 'm',
    attempts: [],
    ok: true,
    durationMs: 5,
    ...(reasoning !== undefined ? { reasoning } : {}),
    ...extra,
  };
}

function call(id: string, turn: number): ToolCallRecord {
  return {
    id,
    index: 0,
    turn,
    name: 'read_file',
    requestedName: 'read_file',
    nameResolution: 'exact',
    arguments: '{}',
    rawArguments: '{}',
    isComplete: true,
    finishReason: 'tool_calls',
    status: 'success',
    requestedAt: 0,
  };
}

function fold(events: RunEvent[]): ReadonlyMap<string, StepReasoning> {
  return events.reduce<ReadonlyMap<string, StepReasoning>>(noteReasoningEvent, new Map());
}

describe('webview: the model reasoning of each turn', () => {
  it('counts the executor turns of each step; a turn with reasoning keeps it under its number', () => {
    const steps = fold([
      request('s1', 'I should read the file first.'),
      request('s2', undefined),
      request('s1', undefined),
      request('s1', undefined, { ok: false, error: 'context overflow' }),
      request('s1', 'Now I can answer.'),
      request('s1', 'plan thoughts', { purpose: 'planner' }),
      request(undefined, 'run-level'),
      request('s2', '   '),
    ]);
    assert.deepEqual(steps.get('s1'), {
      turns: 3,
      reasoning: [
        { turn: 1, text: 'I should read the file first.', model: 'm' },
        { turn: 3, text: 'Now I can answer.', model: 'm' },
      ],
    });
    assert.deepEqual(steps.get('s2'), { turns: 2, reasoning: [] }, 'blank reasoning is no reasoning');
  });

  it('events that are not answered executor requests leave the map as it was', () => {
    const before = fold([request('s1', 'x')]);
    assert.equal(noteReasoningEvent(before, request('s1', 'y', { purpose: 'compact' })), before);
    assert.equal(noteReasoningEvent(before, { type: 'log', seq: 99, time: 1, level: 'info', message: 'hi' }), before);
  });

  it('places each turn before its first call, and a turn without calls after them (the answer)', () => {
    const placed = placeReasoning(
      [
        { turn: 1, text: 'a' },
        { turn: 2, text: 'b' },
        { turn: 3, text: 'c' },
      ],
      [call('c1', 1), call('c2', 1), call('c3', 2)],
    );
    assert.deepEqual(
      [...placed.byCall].map(([id, r]) => [id, r.text]),
      [
        ['c1', 'a'],
        ['c3', 'b'],
      ],
    );
    assert.deepEqual(
      placed.after.map((r) => r.text),
      ['c'],
    );
    assert.equal(
      reasoningHeading({ turn: 3, text: 'c'.repeat(1234), model: 'deepseek-r1' }, true),
      'Model reasoning · turn 3 (its answer) · deepseek-r1 · 1,234 characters',
    );
  });

  it('clips a huge reasoning (a crafted trace) to its head and tail, saying how much was left out; text stays text', () => {
    const huge = `<img src=x onerror=alert(1)>${'z'.repeat(MAX_REASONING_CHARS * 3)}END`;
    const clipped = clipReasoning(huge);
    assert.ok(clipped.length < MAX_REASONING_CHARS + 100);
    assert.ok(clipped.startsWith('<img src=x onerror=alert(1)>'), 'kept verbatim: the panel sets it as textContent, never as HTML');
    assert.ok(clipped.endsWith('END'));
    assert.match(clipped, /\[\.\.\. \d+ characters left out \.\.\.\]/);
    const steps = fold([request('s9', huge)]);
    assert.equal(steps.get('s9')!.reasoning[0].text, clipped);
  });

  it('the panel store folds it from a reset and from live batches, and a new run starts empty', () => {
    const store = new PlanStore();
    const first = request('s1', 'thinking');
    store.reset('run-1', true, [{ ...first, seq: 1 }]);
    assert.deepEqual(
      store.reasoning.get('s1')?.reasoning.map((r) => r.text),
      ['thinking'],
    );
    store.appendEvents('run-1', 2, [{ ...request('s1', 'more'), seq: 2 }]);
    assert.deepEqual(
      store.reasoning.get('s1')?.reasoning.map((r) => [r.turn, r.text]),
      [
        [1, 'thinking'],
        [2, 'more'],
      ],
    );
    store.reset('run-2', true, []);
    assert.equal(store.reasoning.size, 0);
  });
});
