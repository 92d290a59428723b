import assert from 'node:assert/strict';
import { IncrementalPlanReader, type PlanPart } from '../../../src/core/agent/incrementalPlanReader';
import { parseReplanReply } from '../../../src/core/agent/replanPrompt';
import { StreamedRedesignSteps } from '../../../src/core/agent/streamedRedesignSteps';
import { PlanInvariantError, StepIdAllocator } from '../../../src/core/plan/planOperations';
import { foldEvents } from '../../../src/core/plan/reducer';
import { newLog, rawPlan } from '../plan/planFixtures';
import { eventsOf } from '../../support/agentHarness';

// A redesign that streams (docs/design.md, “The replanner”): the replanner's reply is read part by
// part, and each new step joins the plan (marked with the failed step it redesigns) once its own
// entry is complete and what it waits for is known; the whole reply decides at the end.

/** s1 completed, s2 failed after it, s3 waits for s2, s4 runs alongside. */
function failedPlan() {
  const log = rawPlan({ s1: [], s2: ['s1'], s3: ['s2'], s4: [] });
  for (const [stepId, status] of [
    ['s1', 'in_progress'],
    ['s1', 'completed'],
    ['s2', 'in_progress'],
    ['s2', 'failed'],
  ] as const)
    log.append({ type: 'step_status_changed', stepId, status });
  const ids = new StepIdAllocator('s', 4);
  const steps = new StreamedRedesignSteps(log, ids, { failedStepId: 's2', replacedStepIds: ['s2', 's3'] });
  return { log, steps };
}

/** Feeds `text` one character at a time; returns the steps that joined after each part. */
function feed(text: string, steps: StreamedRedesignSteps, reader = new IncrementalPlanReader(50, 'replan')): Array<[PlanPart['kind'], number]> {
  const told: Array<[PlanPart['kind'], number]> = [];
  for (const char of text) for (const part of reader.push(char)) told.push([part.kind, steps.take(part)]);
  return told;
}

describe('a streamed redesign (docs/design.md, “The replanner”)', () => {
  const reply = {
    action: 'redesign',
    reason: 'smaller steps',
    new_steps: [
      { description: 'Write part one of the failed work', dependsOn: [], uses: ['s1'], expects: [{ changed: 'one.txt' }] },
      { description: 'Write part two', dependsOn: [0], uses: [] },
      'A plain step that waits for the top-level forms',
    ],
    new_dependencies: { 2: [1] },
    uses: {},
  };

  it('tells the action first, then each new step once complete, and joins a step whose own entry is complete at once', () => {
    const { log, steps } = failedPlan();
    const told = feed(JSON.stringify(reply), steps);
    assert.deepEqual(told, [
      ['action', 0],
      ['step', 1],
      ['step', 1],
      // The plain step waits for both top-level forms.
      ['step', 0],
      ['steps_ended', 0],
      ['dependencies', 0],
      ['uses', 1],
      ['object_ended', 0],
    ]);
    const added = eventsOf(log.events, 'step_added').filter((e) => e.origin === 'replan');
    assert.deepEqual(
      added.map((e) => [e.stepId, e.dependsOn, e.redesignOf, e.lineage, e.replanAttempts]),
      [
        ['s5', ['s1'], 's2', 's2', 1],
        ['s6', ['s5'], 's2', 's2', 1],
        ['s7', ['s6'], 's2', 's2', 1],
      ],
    );
    assert.equal(added[0].waitsFor?.s1, 'the replan says this step uses its output');
    // The failed step stays in the plan until the reply is whole.
    assert.equal(log.state.steps.get('s2')?.status, 'failed');
    assert.equal(log.state.steps.get('s5')?.redesignOf, 's2');

    const result = parseReplanReply(JSON.stringify(reply));
    assert.equal(steps.disagreement(result), undefined);
    steps.complete(result, { attempt: 1, maxAttempts: 2, reason: 'why' });
    const replaced = eventsOf(log.events, 'subgraph_replaced');
    assert.deepEqual(replaced[0].replan.newStepIds, ['s5', 's6', 's7']);
    assert.deepEqual(replaced[0].replan.replacedStepIds, ['s2', 's3']);
    assert.deepEqual(log.state.stepOrder, ['s1', 's4', 's5', 's6', 's7']);
    // The same plan folds from the events alone (the trace, the webview, a resume).
    assert.deepEqual(foldEvents(log.events).stepOrder, log.state.stepOrder);
  });

  it('says where the whole reply disagrees with a step that joined', () => {
    const { steps } = failedPlan();
    feed(JSON.stringify({ action: 'redesign', new_steps: [{ description: 'a', dependsOn: [], uses: [] }] }), steps);
    const later = parseReplanReply(JSON.stringify({ action: 'redesign', new_steps: [{ description: 'a', dependsOn: [] }], uses: { 0: ['s4'] } }));
    assert.match(steps.disagreement(later) ?? '', /new step 0 joined after \[s1\], but the reply makes it wait for \[s4\]/);
    const renamed = parseReplanReply(JSON.stringify({ action: 'redesign', new_steps: ['b'] }));
    assert.match(steps.disagreement(renamed) ?? '', /read as "a" but the reply says "b"/);
  });

  it('stops joining at a step that uses no live kept step, and the whole reply is then refused', () => {
    const { log, steps } = failedPlan();
    const bad = {
      action: 'redesign',
      new_steps: [
        { description: 'a', dependsOn: [], uses: ['s3'] },
        { description: 'b', dependsOn: [], uses: [] },
      ],
    };
    feed(JSON.stringify(bad), steps);
    assert.equal(eventsOf(log.events, 'step_added').filter((e) => e.origin === 'replan').length, 0);
    assert.match(steps.stopReason ?? '', /cannot depend on "s3": that step is being removed/);
    assert.throws(() => steps.disagreement(parseReplanReply(JSON.stringify(bad))), PlanInvariantError);
    const ghost = { action: 'redesign', new_steps: [{ description: 'a', uses: ['s99'] }] };
    assert.throws(() => failedPlan().steps.disagreement(parseReplanReply(JSON.stringify(ghost))), /"s99": it is not a live step/);
  });

  it('tells nothing more of a give_up or an invalid "uses"', () => {
    const reader = new IncrementalPlanReader(50, 'replan');
    assert.deepEqual(
      reader.push('{"action": "give up", "new_steps": []}').map((p) => p),
      [{ kind: 'action', action: 'give_up' }, { kind: 'steps_ended', count: 0 }, { kind: 'object_ended' }],
    );
    const other = new IncrementalPlanReader(50, 'replan');
    other.push('{"action": "redesign", "uses": {"0": "s1"}, "new_steps": ["a"]}');
    assert.match(other.stopped ?? '', /"uses" is not a valid uses object/);
    const step = new IncrementalPlanReader(50, 'replan');
    step.push('{"action": "redesign", "new_steps": [{"description": "a", "uses": [1]}]}');
    assert.match(step.stopped ?? '', /new_steps\[0\] is not a valid step/);
  });

  it('keeps a step with a kept dependency that is blocked blocked at once', () => {
    const log = newLog();
    for (const [id, deps] of Object.entries({ s1: [], s2: [], s3: ['s2'] }))
      log.append({ type: 'step_added', stepId: id, description: `step ${id}`, dependsOn: deps, lineage: id, replanAttempts: 0, origin: 'planner' });
    log.append({ type: 'step_status_changed', stepId: 's1', status: 'blocked', reason: 'replan_gave_up' });
    log.append({ type: 'step_status_changed', stepId: 's2', status: 'in_progress' });
    log.append({ type: 'step_status_changed', stepId: 's2', status: 'failed' });
    const steps = new StreamedRedesignSteps(log, new StepIdAllocator('s', 3), { failedStepId: 's2', replacedStepIds: ['s2', 's3'] });
    feed(JSON.stringify({ action: 'redesign', new_steps: [{ description: 'x', dependsOn: [], uses: ['s1'] }] }), steps);
    assert.deepEqual([log.state.steps.get('s4')?.status, log.state.steps.get('s4')?.blockedBy], ['blocked', 's1']);
  });
});
