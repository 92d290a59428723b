import assert from 'node:assert/strict';
import { runAgainst, tempWorkspace } from '../support/agentHarness';
import { byStep, json, message, route } from '../support/scriptedReplies';
import { startScriptedServer, type ScriptedServer } from '../support/scriptedServer';
import { emptyCompletedPlan } from '../support/runEventFixtures';
import { endpointFailure, lastRetryableRun, retryPlan } from '../../src/host/runRetry';
import { runIdArgument } from '../../src/host/commandArguments';
import type { RunEvent } from '../../src/core/plan/events';
import type { RecentRun } from '../../src/host/runIndex';

// Retry of a failed run (docs/design.md, "Retrying a run"): which endpoint failure the notification
// names, and what Retry does, decided from the events of real runs against the scripted server.

const NOT_RESUMABLE = { resumable: false as const, reason: 'the run finished' };
const PLAN = json({ title: 't', steps: ['Say hello'], dependencies: {} });

describe('retrying a run', () => {
  let server: ScriptedServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('a 401 is a key problem, and Retry starts the same task again; with the key accepted it completes', async () => {
    server = await startScriptedServer(route({ planner: PLAN, executor: message('hello'), aggregator: message('Said hello.') }), { apiKey: 'another-key' });
    const workspace = tempWorkspace();
    const failed = await runAgainst(server, { task: 'Say hello', workspace });
    assert.equal(failed.result.status, 'failed');
    assert.deepEqual(endpointFailure(failed.events), { kind: 'auth', status: 401, keyProblem: true });
    const plan = retryPlan({ runId: 'r1', live: false, events: failed.events, traceFile: '/t.jsonl', resumability: NOT_RESUMABLE });
    assert.deepEqual(plan, { action: 'restart', task: 'Say hello', workspace, completedSteps: 0 });

    // The key is fixed (the harness sends "test-key"): the retried task runs through.
    await server.close();
    server = await startScriptedServer(route({ planner: PLAN, executor: message('hello'), aggregator: message('Said hello.') }), { apiKey: 'test-key' });
    assert.equal(plan.action, 'restart');
    const retried = await runAgainst(server, { task: plan.task, workspace: plan.workspace });
    assert.equal(retried.result.status, 'completed');
    assert.equal(endpointFailure(retried.events), undefined);
  });

  it('a refused connection is an endpoint failure without a key problem', async () => {
    server = await startScriptedServer();
    const closed = { ...server, baseUrl: server.baseUrl };
    await server.close();
    server = undefined;
    const { events } = await runAgainst(closed);
    assert.deepEqual(endpointFailure(events), { kind: 'unreachable', keyProblem: false });
  });

  it('a run with completed steps restarts only after asking (the count says how many)', async () => {
    server = await startScriptedServer(
      route({
        planner: json({ title: 't', steps: ['First part', 'Second part'], dependencies: { 1: [0] } }),
        executor: byStep({ 'First part': [message('done')], 'Second part': () => ({ kind: 'hang' }) }),
      }),
    );
    const { result, events } = await runAgainst(server, {
      onStart: (run, log) =>
        log.subscribe((event) => {
          if (event.type === 'step_status_changed' && event.status === 'in_progress' && log.state.steps.get(event.stepId)?.description === 'Second part')
            setTimeout(() => run.cancel(), 50);
        }),
    });
    assert.equal(result.status, 'cancelled');
    const plan = retryPlan({ runId: 'r2', live: false, events, resumability: NOT_RESUMABLE });
    assert.equal(plan.action, 'restart');
    assert.equal(plan.action === 'restart' && plan.completedSteps, 1);
    assert.deepEqual(
      plan.action === 'restart' && plan.failedStep,
      { stepId: 's2', description: 'Second part' },
      'Retry step is offered for the step that did not complete',
    );
  });

  it('resumes a resumable run, shows a live one, and leaves a completed one alone', () => {
    const started: RunEvent = { type: 'run_started', seq: 1, time: 1, runId: 'r3', task: 'T', workspace: '/w', model: 'm', baseUrl: 'http://x/v1' };
    assert.deepEqual(retryPlan({ runId: 'r3', live: false, events: [started], traceFile: '/r3.jsonl', resumability: { resumable: true } }), {
      action: 'resume',
      traceFile: '/r3.jsonl',
      workspace: '/w',
    });
    assert.deepEqual(retryPlan({ runId: 'r3', live: true, events: [started], resumability: NOT_RESUMABLE }), { action: 'show', runId: 'r3' });
    const finished: RunEvent = { type: 'run_finished', seq: 2, time: 2, status: 'completed', plan: emptyCompletedPlan('r3', 'T') };
    assert.deepEqual(retryPlan({ runId: 'r3', live: false, events: [started, finished], resumability: NOT_RESUMABLE }), {
      action: 'none',
      reason: 'it completed',
    });
    assert.equal(retryPlan({ runId: 'r3', live: false, events: [], resumability: NOT_RESUMABLE }).action, 'none');
  });

  it('without an argument, Retry means the newest failed, cancelled or interrupted run', () => {
    const run = (runId: string, status: RecentRun['status']): RecentRun => ({ runId, task: runId, startedAt: 0, status, traceFile: `/${runId}.jsonl` });
    const recent = [run('live', 'running'), run('ok', 'completed'), run('bad', 'failed'), run('older', 'failed')];
    assert.equal(lastRetryableRun(recent, (id) => id === 'live')?.runId, 'bad');
    assert.equal(lastRetryableRun(recent, () => false)?.runId, 'live', 'a "running" entry nobody drives was interrupted');
    assert.equal(
      lastRetryableRun([run('ok', 'completed')], () => false),
      undefined,
    );
  });

  it('takes the run id from a string, { runId } or a view item, and nothing else', () => {
    assert.equal(runIdArgument('r1'), 'r1');
    assert.equal(runIdArgument({ runId: 'r2' }), 'r2');
    assert.equal(runIdArgument({ runId: 3 }), undefined);
    assert.equal(runIdArgument(''), undefined);
    assert.equal(runIdArgument(null), undefined);
    assert.equal(runIdArgument(undefined), undefined);
  });
});
