import assert from 'node:assert/strict';
import type { StepEndReason } from '../../../src/core/agent/stepExecutor';
import { stepEndEvents, type StepEnd } from '../../../src/core/agent/stepJudgement';
import { ContextExhaustedError } from '../../../src/core/context/contextExhausted';
import { LlmError } from '../../../src/core/llm/llmTypes';
import type { EventLog } from '../../../src/core/plan/eventLog';
import { addToolCallEvent, startStepEvent, updateToolResultEvent } from '../../../src/core/plan/planOperations';
import type { ToolCallStatus } from '../../../src/core/plan/planTypes';
import { appendAll, examplePlan, sid } from '../plan/planFixtures';

// How a step ends (docs/design.md, “The verifier and how a step ends”), through the one function the scheduler uses.

/** A running step whose calls ended with `statuses` ('pending' calls never got a result). */
function runningStep(statuses: ToolCallStatus[]): EventLog {
  const { log } = examplePlan();
  log.append(startStepEvent(log.state, sid(0)));
  statuses.forEach((status, i) => {
    const id = `c${i + 1}`;
    log.append(addToolCallEvent(log.state, sid(0), { id, name: 'read_file', arguments: { path: `f${i}` } }));
    if (status === 'success' || status === 'error' || status === 'rejected')
      log.append(updateToolResultEvent(log.state, sid(0), id, { status, result: `${status} result` }));
  });
  return log;
}

function end(log: EventLog, how: StepEnd) {
  const { events, replannable } = stepEndEvents(log.state, sid(0), how);
  appendAll(log, events);
  return { step: log.state.steps.get(sid(0))!, events, replannable };
}

const loop = (endReason: StepEndReason, output = 'out'): StepEnd => ({ kind: 'loop', outcome: { output, endReason } });

describe('how a step ends (stepEndEvents)', () => {
  it('answered with every call answered: completed, output then verdict then status', () => {
    const log = runningStep(['success', 'error']);
    const { step, events, replannable } = end(log, loop('answered', 'the answer'));
    assert.deepEqual(
      events.map((e) => e.type),
      ['step_output', 'step_verified', 'step_status_changed'],
    );
    assert.equal(step.status, 'completed');
    assert.equal(step.endReason, undefined);
    assert.equal(step.output, 'the answer');
    assert.equal(step.verdict?.passed, true);
    assert.equal(replannable, false);
  });

  it('answered after every call failed: still completed, the verdict says they failed', () => {
    const { step } = end(runningStep(['error']), loop('answered'));
    assert.equal(step.status, 'completed');
    assert.match(step.verdict!.reason, /got a result, but it failed/);
  });

  it('answered with a pending call: failed (verification_failed), the call listed, replannable', () => {
    const { step, replannable } = end(runningStep(['success', 'pending']), loop('answered'));
    assert.equal(step.status, 'failed');
    assert.equal(step.endReason, 'verification_failed');
    assert.deepEqual(step.verdict!.failedCallIds, ['c2']);
    assert.equal(replannable, true);
  });

  for (const reason of ['repeated_tool_call', 'max_steps_exceeded', 'all_tool_calls_failed'] as const) {
    it(`${reason} fails the step even when every call succeeded`, () => {
      const { step, replannable } = end(runningStep(['success', 'success']), loop(reason, 'stopped'));
      assert.equal(step.status, 'failed');
      assert.equal(step.endReason, reason);
      assert.equal(step.verdict?.passed, false);
      assert.deepEqual(step.verdict?.failedCallIds, []);
      assert.match(step.verdict?.reason ?? '', new RegExp(`ended because .*${reason}`));
      assert.equal(replannable, true);
    });
  }

  it('a non-fatal error: the output says so, failed (llm_error), replannable', () => {
    const { step, replannable } = end(runningStep(['success']), { kind: 'error', error: new LlmError('server', 'HTTP 500 from the endpoint') });
    assert.equal(step.output, 'The step stopped on an error: HTTP 500 from the endpoint');
    assert.equal(step.status, 'failed');
    assert.equal(step.endReason, 'llm_error');
    assert.equal(replannable, true);
  });

  it('an exhausted context window: failed (context_exhausted), replannable', () => {
    const { step, replannable } = end(runningStep([]), {
      kind: 'error',
      error: new ContextExhaustedError('the prompt needs 9000 tokens, 8000 fit', 9000, 8000),
    });
    assert.equal(step.output, 'The step stopped: the prompt needs 9000 tokens, 8000 fit');
    assert.equal(step.status, 'failed');
    assert.equal(step.endReason, 'context_exhausted');
    assert.equal(step.verdict?.passed, false);
    assert.equal(replannable, true);
  });

  it('a run cap: failed (budget_exceeded), never replanned', () => {
    const { step, replannable } = end(runningStep(['success']), loop('budget_exceeded', 'Stopped: over the token cap.'));
    assert.equal(step.status, 'failed');
    assert.equal(step.endReason, 'budget_exceeded');
    assert.equal(step.verdict?.passed, false);
    assert.equal(replannable, false);
  });

  it('a denied required approval: blocked (approval_denied), never replanned', () => {
    const { step, replannable } = end(runningStep(['rejected']), loop('approval_denied', 'Blocked: a required approval was denied.'));
    assert.equal(step.status, 'blocked');
    assert.equal(step.endReason, 'approval_denied');
    assert.deepEqual(step.verdict, {
      passed: false,
      reason: 'A required approval was denied; the step is blocked until it is retried.',
      failedCallIds: [],
      verdict: 'failed',
    });
    assert.equal(replannable, false);
  });

  it('cancelled: failed (cancelled) with no output and no verdict; pending calls stay pending', () => {
    const { step, events, replannable } = end(runningStep(['pending']), { kind: 'cancelled' });
    assert.deepEqual(
      events.map((e) => e.type),
      ['step_status_changed'],
    );
    assert.equal(step.status, 'failed');
    assert.equal(step.endReason, 'cancelled');
    assert.equal(step.verdict, undefined);
    assert.equal(step.toolCalls[0].status, 'pending');
    assert.equal(replannable, false);
  });

  it('a fatal LLM error: failed (llm_error: …), not replanned', () => {
    const { step, replannable } = end(runningStep([]), { kind: 'fatal', message: 'HTTP 401: bad key' });
    assert.equal(step.status, 'failed');
    assert.equal(step.endReason, 'llm_error: HTTP 401: bad key');
    assert.equal(replannable, false);
  });

  it('refuses a step that is not running', () => {
    const { log } = examplePlan();
    assert.throws(() => stepEndEvents(log.state, sid(0), loop('answered')), /cannot end step s1: it is not_started/);
    assert.throws(() => stepEndEvents(log.state, 'ghost', loop('answered')), /the plan has no such step/);
  });
});
