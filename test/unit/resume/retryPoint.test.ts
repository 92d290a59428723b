import assert from 'node:assert/strict';
import type { NewRunEvent, RunEvent } from '../../../src/core/plan/events';
import { foldEvents } from '../../../src/core/plan/reducer';
import { toSnapshot } from '../../../src/core/plan/snapshot';
import { findRetryPoint, NotRetryableError } from '../../../src/core/resume/retryPoint';

// Which steps a retry of one step carries over, runs again or keeps as they ended (docs/design.md,
// “Retrying a step”), decided from a finished run's events alone.

function stamp(events: NewRunEvent[]): RunEvent[] {
  return events.map((e, seq): RunEvent => ({ ...e, seq, time: 1_000 + seq }));
}

const step = (stepId: string, dependsOn: string[] = [], replanAttempts = 0): NewRunEvent => ({
  type: 'step_added',
  stepId,
  description: `Do ${stepId}`,
  dependsOn,
  lineage: stepId,
  replanAttempts,
  origin: 'planner',
});
const status = (stepId: string, s: 'in_progress' | 'completed' | 'failed' | 'blocked', extra: { reason?: string; blockedBy?: string } = {}): NewRunEvent => ({
  type: 'step_status_changed',
  stepId,
  status: s,
  ...extra,
});

/** Appends run_finished with the folded snapshot, as AgentRun does. */
function finished(events: NewRunEvent[], runStatus: 'failed' | 'cancelled' | 'completed' = 'failed'): RunEvent[] {
  const stamped = stamp(events);
  const plan = { ...toSnapshot(foldEvents(stamped)), status: runStatus };
  return stamp([...events, { type: 'run_finished', status: runStatus, plan }]);
}

/**
 * s1 completed; s2 (after s1) blocked after its replans; s3 (after s2) blocked by it;
 * s4 failed on its own branch; s5 never started (the run was stopped by a cap); s6 completed.
 */
function branchyRun(): NewRunEvent[] {
  return [
    { type: 'run_started', runId: 'old', task: 'T', workspace: '/w', model: 'm', baseUrl: 'http://x' },
    { type: 'plan_created', title: 'Plan' },
    step('s1'),
    step('s2', ['s1'], 2),
    step('s3', ['s2']),
    step('s4', [], 1),
    step('s5', ['s6']),
    step('s6'),
    status('s1', 'in_progress'),
    { type: 'step_output', stepId: 's1', output: 'one done' },
    { type: 'step_verified', stepId: 's1', passed: true, reason: 'ok', failedCallIds: [], verdict: 'verified' },
    status('s1', 'completed'),
    status('s2', 'in_progress'),
    status('s2', 'failed', { reason: 'verification_failed' }),
    status('s2', 'blocked', { reason: 'replan_limit_reached' }),
    status('s3', 'blocked', { reason: 'blocked by s2', blockedBy: 's2' }),
    status('s4', 'in_progress'),
    status('s4', 'blocked', { reason: 'replan_limit_reached' }),
    status('s6', 'in_progress'),
    status('s6', 'completed'),
    status('s5', 'blocked', { reason: 'budget_exceeded' }),
  ];
}

describe('retry point of a finished run', () => {
  it('carries completed steps over, runs the retried step, what depends on it and what never started, and keeps other failures as they ended', () => {
    const point = findRetryPoint(finished(branchyRun()), 's2');
    assert.deepEqual(point.retryOf, { runId: 'old', stepId: 's2', description: 'Do s2' });
    assert.deepEqual(point.carriedStepIds, ['s1', 's6']);
    assert.deepEqual(point.rerunStepIds, ['s2', 's3', 's5']);
    assert.deepEqual(point.keptStepIds, ['s4']);
    assert.equal(point.highestStepNumber, 6);
    // Folded after a run_started, the carry is the plan the new run starts from.
    const state = foldEvents(stamp([{ type: 'run_started', runId: 'new', task: 'T', workspace: '/w', model: 'm', baseUrl: 'http://x' }, ...point.carry]));
    const view = state.stepOrder.map((id) => `${id} ${state.steps.get(id)!.status} ${state.steps.get(id)!.replanAttempts}`);
    assert.deepEqual(view, ['s1 completed 0', 's2 not_started 0', 's3 not_started 0', 's4 blocked 1', 's5 not_started 0', 's6 completed 0']);
    const s1 = state.steps.get('s1')!;
    assert.equal(s1.output, 'one done');
    assert.equal(s1.verdict?.verdict, 'verified');
    assert.deepEqual(
      s1.audits.map((a) => [a.kind, a.fromRunId, a.fromStatus]),
      [['carried_over', 'old', 'completed']],
    );
    assert.equal(state.steps.get('s4')!.endReason, 'replan_limit_reached');
    assert.equal(state.steps.get('s2')!.endReason, undefined, 'the retried step starts clean');
  });

  it("keeps every step's contract: its postconditions and its scope", () => {
    const events = branchyRun();
    const s2 = events.findIndex((e) => e.type === 'step_added' && e.stepId === 's2');
    events[s2] = {
      ...(events[s2] as Extract<NewRunEvent, { type: 'step_added' }>),
      expects: [{ exists: 'src/a.ts' }],
      scope: { write: ['src/**'], commands: ['npm test'] },
    };
    const point = findRetryPoint(finished(events), 's2');
    const state = foldEvents(stamp([{ type: 'run_started', runId: 'new', task: 'T', workspace: '/w', model: 'm', baseUrl: 'http://x' }, ...point.carry]));
    assert.deepEqual(state.steps.get('s2')!.scope, { write: ['src/**'], commands: ['npm test'] });
    assert.deepEqual(state.steps.get('s2')!.expects, [{ exists: 'src/a.ts' }]);
    assert.equal(state.steps.get('s1')!.scope, undefined, 'a step that declared none gets none');
  });

  it('runs again the unfinished steps the retried one needs', () => {
    const point = findRetryPoint(finished(branchyRun()), 's3');
    assert.deepEqual(point.rerunStepIds, ['s2', 's3', 's5']);
    assert.equal(point.retryOf.stepId, 's3');
  });

  it('refuses with a sentence: a completed step, a step that is not in the plan, a replaced step, a completed run, an unfinished run', () => {
    const refused = (events: RunEvent[], stepId: string, pattern: RegExp) =>
      assert.throws(
        () => findRetryPoint(events, stepId),
        (error: unknown) => error instanceof NotRetryableError && pattern.test(error.message),
      );
    refused(finished(branchyRun()), 's1', /^step s1 \("Do s1"\) is completed: only a failed or blocked step can be retried$/);
    refused(finished(branchyRun()), 's9', /^run old has no step "s9"$/);
    const replaced: NewRunEvent[] = [
      ...branchyRun(),
      step('s7', ['s1']),
      {
        type: 'subgraph_replaced',
        replan: { failedStepId: 's4', replacedStepIds: ['s4'], newStepIds: ['s7'], attempt: 2, maxAttempts: 2, reason: 'r', action: 'redesign' },
      },
    ];
    refused(finished(replaced), 's4', /^step s4 of run old was replaced by a replan \(by s7\)/);
    refused(finished(branchyRun(), 'completed'), 's2', /^run old completed: it has no failed or blocked step to retry$/);
    refused(stamp(branchyRun()), 's2', /^run old has not finished \(no run_finished line\)/);
  });
});
