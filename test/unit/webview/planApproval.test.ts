import assert from 'node:assert/strict';
import type { RunEvent } from '../../../src/core/plan/events';
import { changesOutsideScope, runDriftCount } from '../../../src/core/plan/stepDrift';
import { parseWebviewMessage } from '../../../src/protocol/messages';
import { planAnswer } from '../../../webview/actions';
import { stepView } from '../../../webview/stepView';
import { PlanStore } from '../../../webview/store';
import { EventStamper } from '../../support/plans/syntheticPlan';

// The panel's side of plan approval (docs/design.md, “Step scopes and plan approval”): the pending
// plan approval read from the plan state, one answer per click, validated on the wire, and drift
// counted on the step and the run.

function run(): { store: PlanStore; stamper: EventStamper; events: RunEvent[] } {
  const stamper = new EventStamper();
  const events: RunEvent[] = [
    stamper.stamp({ type: 'run_started', runId: 'run-1', task: 't', workspace: '/w', model: 'm', baseUrl: 'http://x' }),
    stamper.stamp({
      type: 'plan_approval_requested',
      requestId: 'req-1',
      kind: 'plan',
      title: 'Dates',
      steps: [{ description: 'Write src/date.js', scope: { write: ['src/**'] }, expects: [{ changed: 'src/date.js' }], dependsOn: [] }],
      attempt: 1,
    }),
  ];
  const store = new PlanStore();
  store.reset('run-1', true, events);
  store.takeChanges();
  return { store, stamper, events };
}

describe('plan approval in the panel', () => {
  it('shows the pending plan approval and sends one answer per click, valid on the wire', () => {
    const { store } = run();
    assert.equal(store.pendingPlanApproval()?.requestId, 'req-1');
    const message = planAnswer(store, 'req-1', false, '  only src/date.js  ');
    assert.deepEqual(message, {
      type: 'plan/answer',
      runId: 'run-1',
      requestId: 'req-1',
      approved: false,
      replyTo: message!.replyTo,
      feedback: 'only src/date.js',
    });
    assert.ok(parseWebviewMessage(message).ok);
    assert.equal(planAnswer(store, 'req-1', true), undefined, 'a second click sends nothing');
    assert.equal(planAnswer(store, 'req-unknown', true), undefined);
    assert.equal(parseWebviewMessage({ ...message, approved: 'yes' }).ok, false);
    assert.equal(parseWebviewMessage({ ...message, feedback: 'x'.repeat(4001) }).ok, false);
  });

  it('a refused answer brings the buttons back; the answer event settles the request', () => {
    const { store, stamper } = run();
    const first = planAnswer(store, 'req-1', true)!;
    assert.ok(store.answered.has('req-1'));
    assert.deepEqual(store.applyReply({ replyTo: first.replyTo, outcome: 'refused', reason: 'already_answered', message: 'answered elsewhere' }), {
      refused: 'That approval was not applied: answered elsewhere',
    });
    assert.equal(store.answered.has('req-1'), false);
    const second = planAnswer(store, 'req-1', true)!;
    assert.ok(second);
    store.appendEvents('run-1', 2, [stamper.stamp({ type: 'plan_approval_answered', requestId: 'req-1', approved: true, source: 'panel' })]);
    assert.equal(store.pendingPlanApproval(), undefined);
    assert.ok(store.takeChanges().approvals);
  });

  it('nothing to answer in a panel of a finished run or a trace', () => {
    const { events } = run();
    const store = new PlanStore();
    store.reset('run-1', false, events);
    assert.equal(store.pendingPlanApproval(), undefined);
  });

  it('drift: counted on the step (badge and label) and the run, its changes listed as outside the scope', () => {
    const { store, stamper } = run();
    const more: RunEvent[] = [
      stamper.stamp({ type: 'plan_approval_answered', requestId: 'req-1', approved: true }),
      stamper.stamp({ type: 'plan_created', title: 'Dates' }),
      stamper.stamp({
        type: 'step_added',
        stepId: 's1',
        description: 'Write src/date.js',
        scope: { write: ['src/**'] },
        dependsOn: [],
        lineage: 's1',
        replanAttempts: 0,
        origin: 'planner',
      }),
      stamper.stamp({ type: 'step_audit', stepId: 's1', kind: 'drift', data: { callId: 'c2', what: 'writes lib/x.js', scope: { write: ['src/**'] } } }),
      stamper.stamp({
        type: 'step_audit',
        stepId: 's1',
        kind: 'drift',
        data: { callId: 'c3', what: 'changed stray.txt (through a command)', scope: { write: ['src/**'] }, paths: ['stray.txt'] },
      }),
      stamper.stamp({
        type: 'files_changed',
        stepId: 's1',
        callId: 'c1',
        changes: [{ path: 'src/date.js', kind: 'created', before: null, after: null, restorable: true }],
      }),
      stamper.stamp({
        type: 'files_changed',
        stepId: 's1',
        callId: 'c2',
        changes: [{ path: 'lib/x.js', kind: 'created', before: null, after: null, restorable: true }],
      }),
      stamper.stamp({
        type: 'files_changed',
        stepId: 's1',
        callId: 'c3',
        changes: [{ path: 'stray.txt', kind: 'created', before: null, after: null, restorable: true }],
      }),
    ];
    store.appendEvents('run-1', more[0].seq, more);
    const changes = store.takeChanges();
    assert.ok(changes.steps.has('s1') && changes.run);
    const step = store.state.steps.get('s1')!;
    assert.equal(runDriftCount(store.state), 2);
    assert.deepEqual([...changesOutsideScope(step)].sort(), ['lib/x.js', 'stray.txt']);
    const view = stepView(store.state, step, false, {});
    assert.equal(view.drift, 2);
    assert.match(view.ariaLabel, /2 drift outside the approved scope/);
  });
});
