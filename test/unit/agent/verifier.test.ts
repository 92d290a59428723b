import assert from 'node:assert/strict';
import { getFailedCalls, verifyStep } from '../../../src/core/agent/verifier';
import { addToolCallEvent, startStepEvent, updateToolResultEvent } from '../../../src/core/plan/planOperations';
import type { ToolCallStatus } from '../../../src/core/plan/planTypes';
import { examplePlan, sid } from '../plan/planFixtures';

/** A running step whose calls end in the given statuses (built through the real events). */
function stepWith(statuses: ToolCallStatus[]) {
  const { log } = examplePlan();
  log.append(startStepEvent(log.state, sid(0)));
  statuses.forEach((status, i) => {
    const id = `c${i}`;
    log.append(addToolCallEvent(log.state, sid(0), { id, name: `tool${i}`, arguments: {} }));
    if (status === 'awaiting_approval') {
      log.append({
        type: 'tool_call_awaiting_approval',
        stepId: sid(0),
        callId: id,
        approval: { required: true, denyEffect: 'block', reason: 'write', argsHash: 'h', requestId: 'r' },
      });
    } else if (status !== 'pending') {
      log.append(updateToolResultEvent(log.state, sid(0), id, { status, result: `${status} result` }));
    }
  });
  return log.state.steps.get(sid(0))!;
}

describe('verifier (docs/design.md, “The verifier and how a step ends”)', () => {
  it('passes when there are no tool calls', () => {
    const verdict = verifyStep(stepWith([]));
    assert.deepEqual(verdict, { passed: true, reason: 'no tool calls to verify', failedCallIds: [] });
  });

  it('passes when all calls succeeded', () => {
    const verdict = verifyStep(stepWith(['success', 'success', 'success']));
    assert.equal(verdict.passed, true);
    assert.equal(verdict.reason, 'all 3 tool calls got a result');
    assert.deepEqual(verdict.failedCallIds, []);
  });

  it('fails when any call is pending, listing the failed calls', () => {
    const step = stepWith(['success', 'pending', 'error', 'pending']);
    const verdict = verifyStep(step);
    assert.equal(verdict.passed, false);
    assert.deepEqual(verdict.failedCallIds, ['c1', 'c3']);
    assert.equal(verdict.reason, '2 of 4 tool calls never got a result: tool1 (c1, pending), tool3 (c3, pending)');
    assert.deepEqual(
      getFailedCalls(step).map((c) => c.id),
      ['c1', 'c3'],
    );
  });

  it('a call still awaiting approval is not answered', () => {
    const verdict = verifyStep(stepWith(['awaiting_approval']));
    assert.equal(verdict.passed, false);
    assert.deepEqual(verdict.failedCallIds, ['c0']);
  });

  it('errors and refusals are answers: the step passes, and the reason says all calls failed', () => {
    const verdict = verifyStep(stepWith(['error', 'rejected']));
    assert.equal(verdict.passed, true);
    assert.equal(verdict.reason, 'all 2 tool calls got a result, but every one failed');
    const named = verifyStep(stepWith(['error']), 'all_tool_calls_failed');
    assert.equal(named.reason, 'the tool call got a result; the step ended because every tool call failed (all_tool_calls_failed)');
  });

  it('records why the step ended (max_steps_exceeded, unknown reasons verbatim)', () => {
    const verdict = verifyStep(stepWith(['success', 'pending']), 'max_steps_exceeded');
    assert.equal(verdict.passed, false);
    assert.match(verdict.reason, /never got a result: tool1 \(c1, pending\); the step ended because the tool loop hit its step limit \(max_steps_exceeded\)$/);
    assert.match(verifyStep(stepWith([]), 'cancelled_by_user').reason, /ended because cancelled_by_user$/);
  });
});
