import assert from 'node:assert/strict';
import { buildAggregatorMessages } from '../../../src/core/agent/aggregator';
import { buildReplanMessages } from '../../../src/core/agent/replanPrompt';
import { buildStepMessages, MAX_DEPENDENCY_OUTPUT_TOKENS } from '../../../src/core/agent/stepPrompt';
import { contentText, countPromptTokens, countTextTokens } from '../../../src/core/context/tokenCounter';
import { addStepsEvents, nextReplan, StepIdAllocator } from '../../../src/core/plan/planOperations';
import { appendAll, newLog, runStep } from '../plan/planFixtures';
import { filler } from './conversationFixtures';

// Dependency outputs, the replanner's history and the aggregator's outputs are clipped by tokens
// (docs/design.md, “Context budget and memory”), harder when the budget is small.

function plan(outputs: number) {
  const log = newLog();
  const ids = new StepIdAllocator();
  appendAll(
    log,
    addStepsEvents(log.state, {
      descriptions: ['read everything', 'read more', 'use it'],
      dependencies: { 2: [0, 1] },
      anchorDeps: [],
      origin: 'planner',
      newId: () => ids.next(),
    }),
  );
  runStep(log, 's1', [{ name: 'read_file', args: { path: 'big.txt', note: filler(500) }, result: filler(outputs) }], { output: filler(outputs, 1) });
  runStep(log, 's2', [{ name: 'read_file', args: { path: 'other.txt' }, result: filler(outputs, 2) }], { output: filler(outputs, 3) });
  return log;
}

describe('prompts clipped by tokens (docs/design.md, “Context budget and memory”)', () => {
  it("a step's dependency outputs: at most 2,000 tokens each, a quarter of the budget together", () => {
    const log = plan(10_000);
    const roomy = contentText(buildStepMessages(log.state, 's3')[1].content);
    const outputs = roomy.split('### ').slice(1);
    assert.equal(outputs.length, 2);
    for (const text of outputs) {
      assert.ok(countTextTokens(text) <= MAX_DEPENDENCY_OUTPUT_TOKENS + 30, String(countTextTokens(text)));
      assert.match(text, /more tokens truncated\]/);
    }
    const tight = contentText(buildStepMessages(log.state, 's3', 4000)[1].content);
    assert.ok(countTextTokens(tight) < 4000 * 0.25 + 200, String(countTextTokens(tight)));
    assert.match(tight, /Your step:\nuse it/, 'the step itself is never clipped');
  });

  it("the replanner's history: results and argument values by tokens, harder until the prompt fits", () => {
    const log = plan(5_000);
    log.append({ type: 'step_status_changed', stepId: 's3', status: 'in_progress' });
    log.append({ type: 'step_output', stepId: 's3', output: 'The step stopped: too long' });
    log.append({
      type: 'step_verified',
      stepId: 's3',
      passed: false,
      reason: 'no tool calls to verify; the step ended because context_exhausted',
      failedCallIds: [],
    });
    log.append({ type: 'step_status_changed', stepId: 's3', status: 'failed', reason: 'context_exhausted' });
    const replan = nextReplan(log.state, 's3', 2);
    const tools = [{ name: 'read_file', description: 'Read a file.' }];
    const roomy = buildReplanMessages(log.state, 's3', replan.stepsToReplan, tools);
    const text = contentText(roomy[1].content);
    assert.match(text, /read_file\(path="big.txt", note=" w0 w7[^"]*more tokens truncated\]"\) → " w0[^"]*more tokens truncated\]"/);
    assert.ok(countPromptTokens(roomy) < 3000, String(countPromptTokens(roomy)));
    assert.match(text, /It ran out of context window: .*Split it into several smaller steps/, 'the replanner is told to split the step');
    const tight = buildReplanMessages(log.state, 's3', replan.stepsToReplan, tools, { promptBudget: 1200 });
    assert.ok(countPromptTokens(tight) <= 1200, String(countPromptTokens(tight)));
    assert.match(contentText(tight[1].content), /## Failed step and its downstream/);
  });

  it("the aggregator's step outputs: 1,500 tokens each, 70 % of the budget together", () => {
    const log = plan(5_000);
    const roomy = buildAggregatorMessages(log.state);
    assert.ok(countPromptTokens(roomy) < 2 * 1500 + 300);
    const tight = buildAggregatorMessages(log.state, 1000);
    assert.ok(countPromptTokens(tight) <= 1000, String(countPromptTokens(tight)));
  });
});
