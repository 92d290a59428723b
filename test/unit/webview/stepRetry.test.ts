import assert from 'node:assert/strict';
import type { NewRunEvent, RunEvent } from '../../../src/core/plan/events';
import { foldEvents } from '../../../src/core/plan/reducer';
import { toSnapshot } from '../../../src/core/plan/snapshot';
import { parseWebviewMessage } from '../../../src/protocol/messages';
import { retryStepInNewRun } from '../../../webview/actions';
import { handleHostMessage } from '../../../webview/messageHandler';
import { planRow } from '../../../webview/planList';
import { canRetryInNewRun, carriedOverText, retryOfText } from '../../../webview/stepRetry';
import { stepView } from '../../../webview/stepView';
import { PlanStore } from '../../../webview/store';

// Retry step in the panel (docs/design.md, “Retrying a step”): offered on a failed or blocked step
// once its run has finished, as a message the host's schema accepts; the run that retries says so.

function stamp(events: NewRunEvent[]): RunEvent[] {
  return events.map((e, seq): RunEvent => ({ ...e, seq, time: 1_000 + seq }));
}

const RUNNING: NewRunEvent[] = [
  { type: 'run_started', runId: 'r1', task: 'Release', workspace: '/w', model: 'm', baseUrl: 'http://x' },
  { type: 'plan_created', title: 'Release' },
  { type: 'step_added', stepId: 's1', description: 'Write notes.txt', dependsOn: [], lineage: 's1', replanAttempts: 0, origin: 'planner' },
  { type: 'step_added', stepId: 's2', description: 'Write release.txt', dependsOn: ['s1'], lineage: 's2', replanAttempts: 2, origin: 'planner' },
  { type: 'step_status_changed', stepId: 's1', status: 'in_progress' },
  { type: 'step_status_changed', stepId: 's1', status: 'completed' },
  { type: 'step_status_changed', stepId: 's2', status: 'in_progress' },
  { type: 'step_status_changed', stepId: 's2', status: 'blocked', reason: 'replan_limit_reached' },
];

function finishedRun(): RunEvent[] {
  const plan = { ...toSnapshot(foldEvents(stamp(RUNNING))), status: 'failed' as const };
  return stamp([...RUNNING, { type: 'run_finished', status: 'failed', plan }]);
}

function storeOf(events: RunEvent[], live: boolean): PlanStore {
  const store = new PlanStore();
  handleHostMessage(store, { type: 'host/reset', runId: 'r1', live, events });
  return store;
}

describe('Retry step in the panel', () => {
  it('is offered on a failed or blocked step of a finished run only, and sends a message the host accepts', () => {
    const running = storeOf(stamp(RUNNING), true);
    assert.equal(canRetryInNewRun(running.state, running.state.steps.get('s2')!), false, 'not while the run goes on');
    assert.equal(retryStepInNewRun(running, 's2'), undefined);

    const store = storeOf(finishedRun(), false);
    const s1 = store.state.steps.get('s1')!;
    const s2 = store.state.steps.get('s2')!;
    assert.equal(canRetryInNewRun(store.state, s1), false, 'not a completed step');
    assert.equal(canRetryInNewRun(store.state, s2), true);
    assert.equal(planRow(store.state, s2, stepView(store.state, s2, false)).retryable, true);
    assert.equal(planRow(store.state, s1, stepView(store.state, s1, false)).retryable, false);
    const message = retryStepInNewRun(store, 's2');
    assert.deepEqual(message, { type: 'run/retryStep', runId: 'r1', stepId: 's2' });
    assert.ok(parseWebviewMessage(message).ok);
    assert.equal(retryStepInNewRun(store, 's1'), undefined);
    assert.equal(parseWebviewMessage({ type: 'run/retryStep', runId: 'r1', stepId: '' }).ok, false, 'an empty step id is refused');
    assert.equal(parseWebviewMessage({ type: 'run/retryStep', runId: 'r1', stepId: 's2', trace: '/etc/passwd' }).ok, false, 'no other field');
  });

  it('says in the new run which step of which run it retries, and where a carried step completed', () => {
    const retryOf = { runId: 'r1', stepId: 's2', description: 'Write release.txt' };
    const events = stamp([
      { type: 'run_started', runId: 'r2', task: 'Release', workspace: '/w', model: 'm', baseUrl: 'http://x', retryOf },
      { type: 'step_added', stepId: 's1', description: 'Write notes.txt', dependsOn: [], lineage: 's1', replanAttempts: 0, origin: 'planner' },
      { type: 'step_audit', stepId: 's1', kind: 'carried_over', data: { fromRunId: 'r1', fromStatus: 'completed' } },
      { type: 'step_status_changed', stepId: 's1', status: 'completed' },
    ]);
    const state = storeOf(events, true).state;
    assert.equal(retryOfText(state.retryOf!), 'Retry of step “Write release.txt” (s2) from run r1');
    assert.equal(carriedOverText(state.steps.get('s1')!), 'from run r1, where it completed; not run again');
    const s1 = state.steps.get('s1')!;
    assert.equal(planRow(state, s1, stepView(state, s1, false)).activity, 'Carried over from the earlier run, not run again.');
  });
});
