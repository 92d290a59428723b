import assert from 'node:assert/strict';
import { RunEventSchema, type NewRunEvent } from '../../../src/core/plan/events';
import { checkPlanInvariants } from '../../../src/core/plan/planGraph';
import {
  addStepsEvents,
  addToolCallEvent,
  blockDownstreamEvents,
  endStepEvents,
  giveUpEvents,
  initialPlanEvents,
  nextReplan,
  PlanInvariantError,
  removeStepsEvent,
  replaceSubgraphEvents,
  replanLimitEvents,
  replanOutcomeEvents,
  startStepEvent,
  StepIdAllocator,
  subgraphAnchorDeps,
  updateToolResultEvent,
} from '../../../src/core/plan/planOperations';
import { toSnapshot } from '../../../src/core/plan/snapshot';
import { PlanSnapshotSchema } from '../../../src/core/plan/events';
import { appendAll, assertStatuses, completeExampleUpstream, examplePlan, newLog, readySteps, runStep, sid } from './planFixtures';

/** Fails step 5 of the example plan with a pending write_file (a hallucinated call). */
function failExampleStep5() {
  const { log, ids } = examplePlan();
  completeExampleUpstream(log);
  const verdict = runStep(log, sid(5), [{ name: 'write_file', args: { path: 'src/api.py', content: '...' } }]);
  assert.equal(verdict.passed, false);
  return { log, ids };
}

describe('planOperations', () => {
  describe('StepIdAllocator', () => {
    it('hands out s1, s2, ... in order', () => {
      const ids = new StepIdAllocator();
      assert.deepEqual([ids.next(), ids.next(), ids.next()], ['s1', 's2', 's3']);
    });
  });

  describe('addStepsEvents', () => {
    it('emits schema-valid step_added events with absolute dependencies', () => {
      const { log } = examplePlan();
      const s6 = log.state.steps.get(sid(5))!;
      assert.deepEqual(s6.dependsOn, [sid(3), sid(4)]);
      assert.equal(s6.lineage, sid(5));
      assert.equal(s6.origin, 'planner');
      assert.equal(s6.replanAttempts, 0);
      assert.deepEqual(log.state.stepOrder, [0, 1, 2, 3, 4, 5, 6, 7].map(sid));
      checkPlanInvariants(log.state);
    });

    it('orders a batch dependencies-first so every prefix is a valid plan', () => {
      const log = newLog();
      const ids = new StepIdAllocator();
      const events = addStepsEvents(log.state, {
        descriptions: ['run tests', 'write code', 'write tests'],
        dependencies: { 0: [2], 2: [1] },
        anchorDeps: [],
        origin: 'planner',
        newId: () => ids.next(),
      });
      assert.deepEqual(
        events.map((e) => (e as { stepId: string }).stepId),
        ['s2', 's3', 's1'],
      );
      for (const event of events) {
        log.append(event);
        checkPlanInvariants(log.state);
      }
      assert.deepEqual(log.state.steps.get('s1')!.dependsOn, ['s3']);
    });

    it('roots hang off the anchors; non-roots only off new steps', () => {
      const { log, ids } = examplePlan();
      completeExampleUpstream(log);
      const events = addStepsEvents(log.state, {
        descriptions: ['x', 'y'],
        dependencies: { 1: [0] },
        anchorDeps: [sid(3), sid(4), sid(3)],
        origin: 'replan',
        newId: () => ids.next(),
      });
      assert.deepEqual(
        events.map((e) => (e as { dependsOn: string[] }).dependsOn),
        [[sid(3), sid(4)], ['s9']],
      );
    });

    for (const [name, deps, text] of [
      ['a cycle from the model', { 0: [1], 1: [0] }, /cycle: step \d → step \d → step \d/],
      ['a dangling index', { 1: [5] }, /step 1 depends on step 5, which does not exist/],
      ['a self-dependency', { 0: [0] }, /step 0 depends on itself/],
    ] as const) {
      it(`refuses ${name} and changes nothing`, () => {
        const { log, ids } = examplePlan();
        const before = log.events.length;
        assert.throws(
          () => addStepsEvents(log.state, { descriptions: ['a', 'b'], dependencies: deps, anchorDeps: [], origin: 'planner', newId: () => ids.next() }),
          (error: unknown) => {
            assert.ok(error instanceof PlanInvariantError);
            assert.match(error.message, text);
            return true;
          },
        );
        assert.equal(log.events.length, before);
      });
    }

    it('refuses anchors that are not live, empty batches, empty descriptions and reused ids', () => {
      const { log } = examplePlan();
      const base = { dependencies: {}, origin: 'planner' as const };
      let n = 100;
      const fresh = () => `n${n++}`;
      assert.throws(
        () => addStepsEvents(log.state, { ...base, descriptions: ['a'], anchorDeps: ['ghost'], newId: fresh }),
        /cannot depend on "ghost": it is not a live step/,
      );
      assert.throws(() => addStepsEvents(log.state, { ...base, descriptions: [], anchorDeps: [], newId: fresh }), /at least one step/);
      assert.throws(
        () => addStepsEvents(log.state, { ...base, descriptions: ['ok', '  '], anchorDeps: [], newId: fresh }),
        /new step 1 has an empty description/,
      );
      assert.throws(() => addStepsEvents(log.state, { ...base, descriptions: ['a'], anchorDeps: [], newId: () => sid(0) }), /"s1" is already used/);
      assert.throws(() => addStepsEvents(log.state, { ...base, descriptions: ['a', 'b'], anchorDeps: [], newId: () => 'dup' }), /"dup" is already used/);
    });

    it('initialPlanEvents creates the plan once', () => {
      const log = newLog();
      const ids = new StepIdAllocator();
      appendAll(
        log,
        initialPlanEvents(log.state, { title: 'T', steps: ['a', 'b'], dependencies: { 1: [0] } }, () => ids.next()),
      );
      assert.equal(log.state.title, 'T');
      assert.deepEqual(log.state.steps.get('s2')!.dependsOn, ['s1']);
      assert.throws(() => initialPlanEvents(log.state, { title: 'T', steps: ['c'], dependencies: {} }, () => ids.next()), /already has steps/);
    });
  });

  describe("a step's life (startStepEvent, addToolCallEvent, updateToolResultEvent, endStepEvents)", () => {
    it('add_tool_call records a pending call; update_tool_result answers it', () => {
      const { log } = examplePlan();
      log.append(startStepEvent(log.state, sid(0)));
      log.append(addToolCallEvent(log.state, sid(0), { id: 'c1', name: 'write_file', arguments: { path: 'main.py', content: 'print(1)' } }));
      const call = log.state.steps.get(sid(0))!.toolCalls[0];
      assert.equal(call.status, 'pending');
      assert.equal(call.arguments, '{"path":"main.py","content":"print(1)"}');
      assert.equal(call.requestedAt, log.events.at(-1)!.time);
      log.append(updateToolResultEvent(log.state, sid(0), 'c1', { result: 'File written' }));
      assert.equal(call.status, 'success');
      assert.equal(call.result, 'File written');
      assert.ok(call.completedAt! > call.requestedAt);
    });

    it('endStepEvents records the output, then the verdict, then the status', () => {
      const { log } = examplePlan();
      log.append(startStepEvent(log.state, sid(0)));
      const verdict = { passed: true, reason: 'no tool calls to verify', failedCallIds: [] };
      const events = endStepEvents(log.state, sid(0), { output: 'done', verdict, status: 'completed' });
      assert.deepEqual(
        events.map((e) => e.type),
        ['step_output', 'step_verified', 'step_status_changed'],
      );
      appendAll(log, events);
      const step = log.state.steps.get(sid(0))!;
      assert.equal(step.status, 'completed');
      assert.equal(step.output, 'done');
      assert.deepEqual(step.verdict, verdict);
      assert.equal(step.endReason, undefined);
    });

    it('a failed step with a pending call keeps the call pending and lists it', () => {
      const { log } = failExampleStep5();
      const step = log.state.steps.get(sid(5))!;
      assert.equal(step.status, 'failed');
      assert.equal(step.endReason, 'verification_failed');
      assert.deepEqual(step.verdict!.failedCallIds, [step.toolCalls[0].id]);
      assert.match(step.verdict!.reason, /never got a result: write_file/);
    });

    it('refuses calls and results that do not fit the step', () => {
      const { log } = examplePlan();
      assert.throws(() => addToolCallEvent(log.state, sid(0), { id: 'c', name: 'x', arguments: '{}' }), /not_started, not in_progress/);
      assert.throws(() => startStepEvent(log.state, sid(1)), /still waits on s1/);
      log.append(startStepEvent(log.state, sid(0)));
      assert.throws(() => startStepEvent(log.state, sid(0)), /it is in_progress/);
      log.append(addToolCallEvent(log.state, sid(0), { id: 'c', name: 'x', arguments: '{}' }));
      assert.throws(() => addToolCallEvent(log.state, sid(0), { id: 'c', name: 'x', arguments: '{}' }), /already has a tool call with id "c"/);
      assert.throws(() => updateToolResultEvent(log.state, sid(0), 'nope', { result: '' }), /no tool call "nope"/);
      log.append(updateToolResultEvent(log.state, sid(0), 'c', { result: 'ok' }));
      assert.throws(() => updateToolResultEvent(log.state, sid(0), 'c', { result: 'again' }), /already has a result/);
      assert.throws(() => endStepEvents(log.state, sid(1), { status: 'failed', reason: 'cancelled' }), /cannot end step s2: it is not_started/);
      assert.throws(() => addToolCallEvent(log.state, 'ghost', { id: 'c', name: 'x', arguments: '{}' }), /no such step/);
    });

    it('refuses an end whose status does not match its verdict', () => {
      const { log } = examplePlan();
      log.append(startStepEvent(log.state, sid(0)));
      const passed = { passed: true, reason: 'r', failedCallIds: [] };
      const failed = { passed: false, reason: 'r', failedCallIds: [] };
      assert.throws(() => endStepEvents(log.state, sid(0), { verdict: passed, status: 'failed' }), /as failed with a passing verdict/);
      assert.throws(() => endStepEvents(log.state, sid(0), { verdict: failed, status: 'completed' }), /as completed with a failing verdict/);
      assert.throws(() => endStepEvents(log.state, sid(0), { status: 'completed' }), /as completed with no verdict/);
      appendAll(log, endStepEvents(log.state, sid(0), { verdict: passed, status: 'completed' }));
      assert.throws(() => endStepEvents(log.state, sid(0), { status: 'failed', reason: 'cancelled' }), /it is completed, not in_progress/);
    });

    it('a step blocked by a denied approval, waiting for Retry, can still end (cancelled)', () => {
      const { log } = examplePlan();
      log.append(startStepEvent(log.state, sid(0)));
      log.append({ type: 'step_status_changed', stepId: sid(0), status: 'blocked', reason: 'approval_denied' });
      appendAll(log, endStepEvents(log.state, sid(0), { status: 'failed', reason: 'cancelled' }));
      assert.equal(log.state.steps.get(sid(0))!.status, 'failed');
      log.append({ type: 'step_status_changed', stepId: sid(1), status: 'blocked', reason: 'upstream_blocked' });
      assert.throws(() => endStepEvents(log.state, sid(1), { status: 'failed', reason: 'cancelled' }), /it is blocked, not in_progress/);
    });
  });

  describe('replacing a failed subgraph (replaceSubgraphEvents: removeStepsEvent + addStepsEvents)', () => {
    it('step 5 fails → 5, 6, 7 replaced; 0–4 kept with outputs and tool histories intact', () => {
      const { log, ids } = failExampleStep5();
      const kept = [0, 1, 2, 3, 4].map(sid);
      const before = structuredClone(kept.map((id) => log.state.steps.get(id)));
      const plan = nextReplan(log.state, sid(5), 2);
      assert.deepEqual(plan, { allowed: true, attempt: 1, maxAttempts: 2, stepsToReplan: [sid(5), sid(6), sid(7)] });
      const events = replaceSubgraphEvents(log.state, {
        failedStepId: sid(5),
        replacedStepIds: plan.stepsToReplan,
        newSteps: ['Scaffold the API routes', 'Implement the endpoints', 'Write and run unit tests'],
        newDependencies: { 1: [0], 2: [1] },
        attempt: 1,
        maxAttempts: 2,
        reason: 'write_file never ran',
        newId: () => ids.next(),
      });
      appendAll(log, events);
      const state = log.state;
      assert.deepEqual(structuredClone(kept.map((id) => state.steps.get(id))), before, 'kept steps unchanged');
      assert.deepEqual(state.stepOrder, [...kept, 's9', 's10', 's11']);
      assert.deepEqual(state.steps.get('s9')!.dependsOn, [sid(3), sid(4)], "roots hang off the failed step's kept dependencies");
      assert.deepEqual(state.steps.get('s10')!.dependsOn, ['s9']);
      for (const id of ['s9', 's10', 's11']) {
        const step = state.steps.get(id)!;
        assert.equal(step.origin, 'replan');
        assert.equal(step.lineage, sid(5), 'replacements inherit the failed lineage');
        assert.equal(step.replanAttempts, 1);
      }
      // Removed steps stay in history, linked to their replacements.
      assert.deepEqual([...state.replacedSteps.keys()], [sid(5), sid(6), sid(7)]);
      assert.deepEqual(state.replacedSteps.get(sid(5))!.replacedBy, { replanIndex: 0, newStepIds: ['s9', 's10', 's11'] });
      assert.equal(state.replacedSteps.get(sid(5))!.toolCalls[0].status, 'pending');
      assert.deepEqual(state.replans, [
        {
          failedStepId: sid(5),
          replacedStepIds: [sid(5), sid(6), sid(7)],
          newStepIds: ['s9', 's10', 's11'],
          attempt: 1,
          maxAttempts: 2,
          reason: 'write_file never ran',
          action: 'redesign',
        },
      ]);
      checkPlanInvariants(state);
      assert.deepEqual(readySteps(state), ['s9']);
      PlanSnapshotSchema.parse(toSnapshot(state));
    });

    it('remove_steps leaves no dependency on a removed step', () => {
      const { log, ids } = failExampleStep5();
      appendAll(
        log,
        replaceSubgraphEvents(log.state, {
          failedStepId: sid(5),
          newSteps: ['only'],
          newDependencies: {},
          attempt: 1,
          maxAttempts: 2,
          reason: 'r',
          newId: () => ids.next(),
        }),
      );
      const removed = new Set([sid(5), sid(6), sid(7)]);
      for (const id of log.state.stepOrder)
        assert.ok(
          log.state.steps.get(id)!.dependsOn.every((d) => !removed.has(d)),
          id,
        );
    });

    it('a redesigned step waits only for what it uses, never for every input of the steps it replaced', () => {
      // notes (s1) → run tests (s2, fails) → changelog (s3) ; release notes (s4) → changelog (s3).
      const setUp = () => {
        const log = newLog();
        const ids = new StepIdAllocator();
        appendAll(
          log,
          addStepsEvents(log.state, {
            descriptions: ['Write the parser', 'Run the parser tests', 'Update CHANGELOG.md with the release notes', 'Draft the release notes'],
            dependencies: { 1: [0], 2: [1, 3] },
            anchorDeps: [],
            origin: 'planner',
            newId: () => ids.next(),
          }),
        );
        runStep(log, 's1', []);
        runStep(log, 's2', [{ name: 'x', args: {} }]);
        return { log, ids };
      };
      const redesign = (newSteps: string[], newDependencies: Record<number, number[]>, uses?: Record<number, string[]>) => {
        const { log, ids } = setUp();
        appendAll(
          log,
          replaceSubgraphEvents(log.state, {
            failedStepId: 's2',
            newSteps,
            newDependencies,
            uses,
            attempt: 1,
            maxAttempts: 2,
            reason: 'r',
            newId: () => ids.next(),
          }),
        );
        return log.state;
      };
      // The replanner is told what the replaced steps relied on (both the test run's and the CHANGELOG's inputs).
      assert.deepEqual(subgraphAnchorDeps(setUp().log.state, ['s2', 's3']), ['s1', 's4']);
      // A fix of the tests continues the failed step: it waits for that step's input only.
      let state = redesign(['Fix and rerun the tests'], {});
      assert.deepEqual(state.steps.get('s5')!.dependsOn, ['s1']);
      assert.match(state.steps.get('s5')!.waitsFor!.s1, /continues the replaced s2 “Run the parser tests” \(both about “tests”\)/);
      // A step that resembles nothing it replaced still gets the failed step's input (finished, so no waiting).
      state = redesign(['Try a different approach'], {});
      assert.deepEqual(state.steps.get('s5')!.dependsOn, ['s1']);
      assert.match(state.steps.get('s5')!.waitsFor!.s1, /redoes the work of the failed s2/);
      // The new CHANGELOG step continues the old one: it waits for the release notes, not for the test run (s5).
      state = redesign(['Fix and rerun the tests', 'Update CHANGELOG.md'], {});
      assert.deepEqual(state.steps.get('s6')!.dependsOn, ['s4']);
      assert.match(state.steps.get('s6')!.waitsFor!.s4, /continues the replaced s3 .*changelog\.md/);
      assert.deepEqual(readySteps(state), ['s4', 's5']);
      // What the replan names is kept; an input already waited for through an earlier new step is not repeated.
      state = redesign(['Fix and rerun the tests', 'Summarise the results'], { 1: [0] }, { 0: ['s1', 's4'], 1: ['s4'] });
      assert.deepEqual(state.steps.get('s5')!.dependsOn, ['s1', 's4']);
      assert.deepEqual(state.steps.get('s6')!.dependsOn, ['s5']);
      assert.equal(state.steps.get('s6')!.waitsFor, undefined);
    });

    it('refuses a step the replan names in "uses" that is not a kept live step', () => {
      const { log, ids } = failExampleStep5();
      const base = { failedStepId: sid(5), newSteps: ['x'], newDependencies: {}, attempt: 1, maxAttempts: 2, reason: 'r', newId: () => ids.next() };
      assert.throws(() => replaceSubgraphEvents(log.state, { ...base, uses: { 0: ['ghost'] } }), /"ghost": it is not a live step/);
      assert.throws(() => replaceSubgraphEvents(log.state, { ...base, uses: { 0: [sid(6)] } }), /"s7": that step is being removed/);
    });

    it('refuses a replacement set that is not exactly the failed step and its downstream', () => {
      const { log, ids } = failExampleStep5();
      const base = { failedStepId: sid(5), newSteps: ['x'], newDependencies: {}, attempt: 1, maxAttempts: 2, reason: 'r', newId: () => ids.next() };
      assert.throws(() => replaceSubgraphEvents(log.state, { ...base, replacedStepIds: [sid(5), sid(6)] }), /must also remove its downstream s8/);
      assert.throws(() => replaceSubgraphEvents(log.state, { ...base, replacedStepIds: [sid(5), sid(6), sid(7), sid(0)] }), /cannot remove s1/);
      assert.throws(() => replaceSubgraphEvents(log.state, { ...base, anchorDeps: [sid(6)] }), /"s7": that step is being removed/);
      assert.throws(() => replaceSubgraphEvents(log.state, { ...base, newSteps: ['a', 'b'], newDependencies: { 0: [1], 1: [0] } }), PlanInvariantError);
      assert.throws(() => replaceSubgraphEvents(log.state, { ...base, failedStepId: sid(4) }), /it is completed, not failed/);
      assert.throws(() => removeStepsEvent(log.state, { ...base, attempt: 2, newStepIds: [] }), /must be attempt 1, got 2/);
    });
  });

  describe('attempt limit per lineage', () => {
    it('original + 2 rewrites, then blocked, counting across replacements', () => {
      const { log, ids } = failExampleStep5();
      const max = 2;
      const redesign = (failedStepId: string) => {
        const plan = nextReplan(log.state, failedStepId, max);
        assert.equal(plan.allowed, true);
        appendAll(
          log,
          replanOutcomeEvents(log.state, {
            failedStepId,
            decision: { action: 'redesign', newSteps: ['retry API', 'test'], newDependencies: { 1: [0] } },
            maxAttempts: max,
            newId: () => ids.next(),
          }),
        );
      };
      redesign(sid(5));
      assert.equal(log.state.steps.get('s9')!.replanAttempts, 1);
      runStep(log, 's9', [{ name: 'write_file', args: { path: 'src/api.py' } }]);
      redesign('s9');
      const third = log.state.stepOrder.at(-2)!;
      assert.equal(log.state.steps.get(third)!.replanAttempts, 2);
      assert.equal(log.state.steps.get(third)!.lineage, sid(5));
      runStep(log, third, [{ name: 'write_file', args: { path: 'src/api.py' } }]);
      const plan = nextReplan(log.state, third, max);
      assert.equal(plan.allowed, false);
      assert.equal(plan.attempt, 3);
      assert.throws(
        () =>
          replanOutcomeEvents(log.state, {
            failedStepId: third,
            decision: { action: 'redesign', newSteps: ['x'], newDependencies: {} },
            maxAttempts: max,
            newId: () => ids.next(),
          }),
        /already used 2 of 2 rewrites/,
      );
      appendAll(log, replanLimitEvents(log.state, third));
      const last = log.state.stepOrder.at(-1)!;
      assertStatuses(log, { [third]: 'blocked', [last]: 'blocked' });
      assert.equal(log.state.steps.get(third)!.endReason, 'replan_limit_reached');
      assert.equal(log.state.steps.get(last)!.blockedBy, third);
      assert.equal(log.state.replans.length, 2);
      assert.equal(log.state.replacedSteps.size, 3 + 2);
    });

    it('maxAttempts 0 blocks at the first failure', () => {
      const { log } = failExampleStep5();
      assert.equal(nextReplan(log.state, sid(5), 0).allowed, false);
    });
  });

  describe('give_up and blocking', () => {
    it('give_up: the failed step is blocked, its downstream is blocked by it, and the replan is recorded', () => {
      const { log } = failExampleStep5();
      appendAll(
        log,
        replanOutcomeEvents(log.state, {
          failedStepId: sid(5),
          decision: { action: 'give_up', newSteps: [], newDependencies: {}, reason: 'no API framework available' },
          maxAttempts: 2,
          newId: () => 'never',
        }),
      );
      assertStatuses(log, { [sid(5)]: 'blocked', [sid(6)]: 'blocked', [sid(7)]: 'blocked', [sid(4)]: 'completed' });
      assert.equal(log.state.steps.get(sid(5))!.endReason, 'replan_gave_up');
      assert.equal(log.state.steps.get(sid(6))!.blockedBy, sid(5));
      assert.equal(log.state.steps.get(sid(7))!.blockedBy, sid(5));
      assert.equal(log.state.replans.length, 1);
      const record = log.state.replans[0];
      assert.equal(record.action, 'give_up');
      assert.equal(record.attempt, 1);
      assert.match(record.reason, /never got a result.*replanner: no API framework available/);
      assert.deepEqual(readySteps(log.state), []);
    });

    it('blockDownstreamEvents only touches not-started steps', () => {
      const { log } = examplePlan();
      runStep(log, sid(0), []);
      log.append(startStepEvent(log.state, sid(1)));
      const events = blockDownstreamEvents(log.state, sid(0), 'upstream_blocked');
      assert.deepEqual(
        events.map((e) => (e as { stepId: string }).stepId),
        [2, 3, 4, 5, 6, 7].map(sid),
      );
    });

    it('giveUpEvents refuses a step that did not fail', () => {
      const { log } = examplePlan();
      assert.throws(() => giveUpEvents(log.state, { failedStepId: sid(0), attempt: 1, maxAttempts: 2, reason: 'r' }), /not_started, not failed/);
    });

    it('new steps hanging off a blocked kept step are blocked by it at once', () => {
      // 0 (fails, gives up) ; 1 (fails, redesigned) ; 2 depends on 0 and 1.
      const log = newLog();
      const ids = new StepIdAllocator();
      appendAll(
        log,
        addStepsEvents(log.state, {
          descriptions: ['Fetch the data', 'Build the bundle', 'Publish the bundle'],
          dependencies: { 2: [0, 1] },
          anchorDeps: [],
          origin: 'planner',
          newId: () => ids.next(),
        }),
      );
      runStep(log, 's1', [{ name: 'x', args: {} }]);
      runStep(log, 's2', [{ name: 'y', args: {} }]);
      appendAll(log, giveUpEvents(log.state, { failedStepId: 's1', attempt: 1, maxAttempts: 2, reason: 'r' }));
      assertStatuses(log, { s1: 'blocked', s3: 'blocked' });
      appendAll(
        log,
        replaceSubgraphEvents(log.state, {
          failedStepId: 's2',
          newSteps: ['Rebuild the bundle', 'Publish the bundle again'],
          newDependencies: { 1: [0] },
          attempt: 1,
          maxAttempts: 2,
          reason: 'r',
          newId: () => ids.next(),
        }),
      );
      // The new steps continue the publish step, which needed s1; s1 is blocked, so the redesign can
      // never finish: both new steps wait for s1 (s5 through s4) and are shown as blocked by it.
      assert.deepEqual(log.state.steps.get('s4')!.dependsOn, ['s1']);
      assert.deepEqual(log.state.steps.get('s5')!.dependsOn, ['s4']);
      assertStatuses(log, { s4: 'blocked', s5: 'blocked' });
      assert.equal(log.state.steps.get('s5')!.blockedBy, 's1');
    });
  });

  describe('every emitted event is valid per RunEventSchema', () => {
    it('stamped with seq and time, each builder output parses', () => {
      const { log, ids } = failExampleStep5();
      const built: NewRunEvent[] = [
        ...blockDownstreamEvents(log.state, sid(5)),
        ...giveUpEvents(log.state, { failedStepId: sid(5), attempt: 1, maxAttempts: 2, reason: 'r' }),
        ...replaceSubgraphEvents(log.state, {
          failedStepId: sid(5),
          newSteps: ['a', 'b'],
          newDependencies: { 1: [0] },
          attempt: 1,
          maxAttempts: 2,
          reason: 'r',
          newId: () => ids.next(),
        }),
      ];
      built.forEach((event, i) => RunEventSchema.parse({ ...event, seq: i, time: i }));
      // The log itself validated every appended event (see newLog).
      assert.ok(log.events.length > 30);
    });
  });
});
