import assert from 'node:assert/strict';
import { EventLog } from '../../../src/core/plan/eventLog';
import { RunEventSchema } from '../../../src/core/plan/events';
import { addToolCallEvent, startStepEvent, updateToolResultEvent } from '../../../src/core/plan/planOperations';
import { RESTARTED_AUDIT } from '../../../src/core/plan/resumeFold';
import { findResumePoint, highestStepNumber, NotResumableError } from '../../../src/core/resume/resumePoint';
import { examplePlan, runStep, sid } from '../plan/planFixtures';

// Where an interrupted run picks up, and what run_resumed does to the plan (docs/design.md, “Resuming a run”).

/** The example plan interrupted with s1 completed, s2 and s3 running (s3 with a call in flight). */
function interrupted() {
  const { log, ids } = examplePlan();
  runStep(log, sid(0), [{ name: 'read_file', args: { path: 'requirements.md' }, result: 'needs an API' }], { output: 'requirements read' });
  log.append(startStepEvent(log.state, sid(1)));
  log.append(startStepEvent(log.state, sid(2)));
  log.append(addToolCallEvent(log.state, sid(2), { id: 'call_a', name: 'write_file', arguments: { path: 'db.md', content: 'x' } }));
  log.append(updateToolResultEvent(log.state, sid(2), 'call_a', { result: 'written' }));
  log.append(addToolCallEvent(log.state, sid(2), { id: 'call_b', name: 'run_command', arguments: { command: 'make' } }));
  log.append({
    type: 'llm_request',
    purpose: 'executor',
    stepId: sid(2),
    requestedModel: 'm',
    attempts: [],
    ok: true,
    usage: { promptTokens: 100, completionTokens: 10 },
    durationMs: 5,
  });
  return { log, ids };
}

describe('resume point', () => {
  it('keeps completed steps, restarts the running ones, and continues after the last seq', () => {
    const { log } = interrupted();
    const point = findResumePoint(log.events);
    assert.equal(point.started.runId, 'run-1');
    assert.equal(point.lastSeq, log.events.at(-1)!.seq);
    assert.deepEqual(point.restartStepIds, [sid(1), sid(2)]);
    assert.deepEqual(point.replanStepIds, []);
    assert.equal(point.state.steps.get(sid(0))!.status, 'completed');
  });

  it('a step waiting for the Retry of a denied required approval starts again; a blocked step with a verdict does not', () => {
    const { log } = examplePlan();
    log.append(startStepEvent(log.state, sid(0)));
    log.append({ type: 'step_status_changed', stepId: sid(0), status: 'blocked', reason: 'approval_denied' });
    assert.deepEqual(findResumePoint(log.events).restartStepIds, [sid(0)]);
    log.append({ type: 'step_verified', stepId: sid(0), passed: false, reason: 'denied', failedCallIds: [] });
    assert.deepEqual(findResumePoint(log.events).restartStepIds, []);
  });

  it('a failed step still in the plan is replanned, unless a cancel, a fatal LLM error or a run cap ended it', () => {
    const { log } = examplePlan();
    runStep(log, sid(0), [{ name: 'read_file', args: { path: 'a' } }], { output: 'claims' });
    assert.equal(log.state.steps.get(sid(0))!.status, 'failed');
    assert.deepEqual(findResumePoint(log.events).replanStepIds, [sid(0)]);
    for (const reason of ['cancelled', 'budget_exceeded', 'llm_error: 401 the key was rejected']) {
      const again = examplePlan().log;
      runStep(again, sid(0), [{ name: 'read_file', args: { path: 'a' } }], { output: 'claims' });
      again.append({ type: 'step_status_changed', stepId: sid(0), status: 'failed', reason });
      assert.deepEqual(findResumePoint(again.events).replanStepIds, [], reason);
    }
  });

  it('a finished run is not resumable, and says so', () => {
    const { log } = interrupted();
    log.append({
      type: 'run_finished',
      status: 'cancelled',
      plan: {
        runId: 'run-1',
        task: 't',
        title: '',
        status: 'cancelled',
        steps: [],
        replacedSteps: [],
        replans: [],
        usage: { promptTokens: 0, completionTokens: 0 },
      },
    });
    assert.throws(
      () => findResumePoint(log.events),
      (error: unknown) =>
        error instanceof NotResumableError &&
        /run run-1 already finished \(cancelled, run_finished at seq \d+\); only an interrupted run can be resumed/.test(error.message),
    );
  });

  it('a list that does not start with run_started is not a run', () => {
    assert.throws(() => findResumePoint([]), /not the trace of a Cortex run/);
    assert.throws(() => findResumePoint([{ seq: 0, time: 1, type: 'plan_created', title: 'x' }]), /does not start with run_started/);
  });

  it('new step ids continue after the highest recorded one, replaced steps included', () => {
    const { log } = examplePlan();
    assert.equal(highestStepNumber(log.state), 8);
    log.append({ type: 'step_added', stepId: 's12', description: 'late', dependsOn: [], lineage: 's12', replanAttempts: 1, origin: 'replan' });
    log.append({
      type: 'subgraph_replaced',
      replan: { failedStepId: 's12', replacedStepIds: ['s12'], newStepIds: [], attempt: 1, maxAttempts: 2, reason: 'r', action: 'redesign' },
    });
    assert.equal(highestStepNumber(log.state), 12);
  });
});

describe('run_resumed in the reducer', () => {
  it('runs again: restarted steps are not_started with no calls, their earlier attempt in an audit; usage, completed work and seq are kept', () => {
    const { log } = interrupted();
    const before = structuredClone(log.state.steps.get(sid(2))!);
    const usage = { ...log.state.usage };
    const lastSeq = log.state.lastSeq;
    const resumed = log.append({ type: 'run_resumed', fromSeq: lastSeq, restartedStepIds: [sid(1), sid(2)], partialChanges: 'kept' });
    assert.equal(resumed.seq, lastSeq + 1);
    RunEventSchema.parse(resumed);
    const s3 = log.state.steps.get(sid(2))!;
    assert.equal(log.state.status, 'running');
    assert.equal(s3.status, 'not_started');
    assert.deepEqual(s3.toolCalls, []);
    assert.equal(s3.startedAt, undefined);
    assert.deepEqual(s3.usage, before.usage, 'the step keeps what its earlier attempt cost');
    assert.deepEqual(log.state.usage, usage);
    const audit = s3.audits.find((a) => a.kind === RESTARTED_AUDIT)!;
    assert.equal(audit.seq, resumed.seq);
    assert.deepEqual((audit.earlierAttempt as { toolCalls: unknown }).toolCalls, before.toolCalls);
    assert.equal(log.state.steps.get(sid(0))!.status, 'completed');
    assert.equal(log.state.steps.get(sid(0))!.output, 'requirements read');
    // The restarted step can start again and reuse its earlier call ids.
    log.append(startStepEvent(log.state, sid(2)));
    log.append(addToolCallEvent(log.state, sid(2), { id: 'call_a', name: 'write_file', arguments: { path: 'db.md', content: 'y' } }));
    assert.equal(log.state.steps.get(sid(2))!.toolCalls.length, 1);
  });

  it('a log built on recorded events folds them silently and continues their seq', () => {
    const { log } = interrupted();
    const seen: number[] = [];
    const resumedLog = new EventLog({ history: log.events });
    resumedLog.subscribe((event) => seen.push(event.seq));
    assert.equal(resumedLog.state.steps.get(sid(0))!.status, 'completed');
    resumedLog.append({ type: 'log', level: 'info', message: 'hello' });
    assert.deepEqual(seen, [log.events.length]);
  });
});
