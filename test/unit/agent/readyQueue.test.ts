import assert from 'node:assert/strict';
import { ReadyQueue } from '../../../src/core/agent/readyQueue';
import type { EventLog } from '../../../src/core/plan/eventLog';
import { replaceSubgraphEvents } from '../../../src/core/plan/planOperations';
import type { PlanState } from '../../../src/core/plan/planTypes';
import { seededRandom as mulberry32 } from '../../support/seededRandom';
import { appendAll, completeExampleUpstream, examplePlan, rawPlan, runStep, sid } from '../plan/planFixtures';

// The scheduler's ready set (docs/design.md, “Scheduling and parallelism”), fed by the event log as AgentRun feeds it.

function queueOn(log: EventLog): ReadyQueue {
  const queue = new ReadyQueue(log.state);
  log.subscribe((event) => queue.observe(event));
  return queue;
}

/** The definition: not started, and every dependency a live, completed step. */
function readyByDefinition(state: PlanState): string[] {
  return state.stepOrder.filter((id) => {
    const step = state.steps.get(id)!;
    return step.status === 'not_started' && step.dependsOn.every((dep) => state.steps.get(dep)?.status === 'completed');
  });
}

describe('ReadyQueue', () => {
  it('releases steps as their dependencies complete, longest critical path first', () => {
    const { log } = examplePlan();
    const queue = queueOn(log);
    assert.deepEqual(queue.ready(new Set()), [sid(0)]);
    runStep(log, sid(0), []);
    assert.deepEqual(queue.ready(new Set()), [sid(1), sid(2)]);
    runStep(log, sid(1), []);
    // s3 still heads a four-step chain; s4 only a three-step one.
    assert.deepEqual(queue.ready(new Set()), [sid(2), sid(3)]);
    assert.equal(queue.priority(sid(2)), 4);
    assert.equal(queue.priority(sid(3)), 3);
  });

  it('orders by critical path, ties in plan order, and leaves out the excluded steps', () => {
    const log = rawPlan({ a: [], b: [], c: ['b'], d: [] });
    const queue = queueOn(log);
    assert.deepEqual(queue.ready(new Set()), ['b', 'a', 'd']);
    assert.deepEqual(queue.ready(new Set(['b'])), ['a', 'd']);
  });

  it("drops a step once it started, and never releases a failed step's dependents", () => {
    const { log } = examplePlan();
    const queue = queueOn(log);
    runStep(log, sid(0), [{ name: 'write_file', args: { path: 'a' } }]);
    assert.equal(log.state.steps.get(sid(0))!.status, 'failed');
    assert.deepEqual(queue.ready(new Set()), []);
  });

  it('a step with a dangling dependency is never ready', () => {
    assert.deepEqual(new ReadyQueue(rawPlan({ a: [], b: ['ghost'] }).state).ready(new Set()), ['a']);
  });

  it('starts from the current statuses', () => {
    const { log } = examplePlan();
    completeExampleUpstream(log);
    assert.deepEqual(new ReadyQueue(log.state).ready(new Set()), [sid(5)]);
  });

  it('rebuilds after a replan changes the structure', () => {
    const { log, ids } = examplePlan();
    completeExampleUpstream(log);
    const queue = queueOn(log);
    assert.deepEqual(queue.ready(new Set()), [sid(5)]);
    runStep(log, sid(5), [{ name: 'write_file', args: { path: 'src/api.py' } }]);
    appendAll(
      log,
      replaceSubgraphEvents(log.state, {
        failedStepId: sid(5),
        newSteps: ['api', 'tests'],
        newDependencies: { 1: [0] },
        attempt: 1,
        maxAttempts: 2,
        reason: 'r',
        newId: () => ids.next(),
      }),
    );
    assert.deepEqual(queue.ready(new Set()), ['s9']);
    runStep(log, 's9', []);
    assert.deepEqual(queue.ready(new Set()), ['s10']);
  });

  it('agrees with the definition over a whole random run', () => {
    const random = mulberry32(7);
    const deps: Record<string, string[]> = {};
    for (let i = 0; i < 60; i++) deps[`r${i}`] = i === 0 ? [] : [...new Set([`r${Math.floor(random() * i)}`, `r${Math.floor(random() * i)}`])];
    const log = rawPlan(deps);
    const queue = queueOn(log);
    for (let ready = queue.ready(new Set()); ready.length > 0; ready = queue.ready(new Set())) {
      assert.deepEqual([...ready].sort(), readyByDefinition(log.state).sort());
      runStep(log, ready[Math.floor(random() * ready.length)], []);
    }
    assert.ok(log.state.stepOrder.every((id) => log.state.steps.get(id)!.status === 'completed'));
  });
});
