import assert from 'node:assert/strict';
import type { NewRunEvent, RunEvent } from '../../../src/core/plan/events';
import { toSnapshot } from '../../../src/core/plan/snapshot';
import { DEMO_RUN_ID, demoPlan } from '../../support/plans/demoPlan';
import { EventStamper, syntheticPlanEvents } from '../../support/plans/syntheticPlan';
import { PlanStore } from '../../../webview/store';

function plan(count = 5): { store: PlanStore; stamper: EventStamper; runId: string } {
  const stamper = new EventStamper();
  const runId = 'run-1';
  const store = new PlanStore();
  store.reset(runId, true, syntheticPlanEvents(count, stamper, runId));
  store.takeChanges();
  return { store, stamper, runId };
}

describe('webview store', () => {
  it('folds a reset with the shared reducer and flags everything for render', () => {
    const store = new PlanStore();
    const { events } = demoPlan();
    store.reset(DEMO_RUN_ID, true, events);
    assert.equal(store.runId, DEMO_RUN_ID);
    assert.equal(store.lastSeq, events[events.length - 1].seq);
    assert.deepEqual([...store.state.replacedSteps.keys()].sort(), ['s2', 's4']);
    const changes = store.takeChanges();
    assert.ok(changes.reset && changes.structure && changes.run && changes.approvals);
    assert.equal(changes.events, events.length);
    assert.equal(store.hasChanges(), false);
  });

  it('separates structural changes from restyles', () => {
    const { store, stamper, runId } = plan();
    const status = stamper.stamp({ type: 'step_status_changed', stepId: 's2', status: 'in_progress' });
    const note = stamper.stamp({ type: 'step_output', stepId: 's3', output: 'hi' });
    assert.deepEqual(store.appendEvents(runId, status.seq, [status, note]), { kind: 'applied', applied: 2 });
    let changes = store.takeChanges();
    assert.equal(changes.structure, false);
    assert.deepEqual([...changes.steps].sort(), ['s2', 's3']);
    assert.equal(changes.events, 2);

    const added = stamper.stamp({
      type: 'step_added',
      stepId: 's9',
      description: 'more',
      dependsOn: ['s1'],
      lineage: 's9',
      replanAttempts: 0,
      origin: 'planner',
    });
    store.appendEvents(runId, added.seq, [added]);
    changes = store.takeChanges();
    assert.equal(changes.structure, true);

    const usage = stamper.stamp({
      type: 'llm_request',
      purpose: 'planner',
      requestedModel: 'm',
      attempts: [],
      ok: true,
      usage: { promptTokens: 3, completionTokens: 4 },
      durationMs: 1,
    });
    store.appendEvents(runId, usage.seq, [usage]);
    changes = store.takeChanges();
    assert.equal(changes.structure, false);
    assert.equal(changes.run, true);
    assert.deepEqual(store.state.usage, { promptTokens: 3, completionTokens: 4 });
  });

  it('restyles the steps a blocker blocked when the blocker changes', () => {
    const { store, stamper, runId } = plan();
    const blocked = stamper.stamp({ type: 'step_status_changed', stepId: 's4', status: 'blocked', blockedBy: 's2' });
    store.appendEvents(runId, blocked.seq, [blocked]);
    store.takeChanges();
    const failed = stamper.stamp({ type: 'step_status_changed', stepId: 's2', status: 'failed', reason: 'max_steps_exceeded' });
    store.appendEvents(runId, failed.seq, [failed]);
    assert.ok(store.takeChanges().steps.has('s4'));
  });

  it('detects a seq gap, asks for a resync once, and resumes when the missing events arrive', () => {
    const { store, stamper, runId } = plan();
    const lost = stamper.stamp({ type: 'step_output', stepId: 's1', output: 'lost' });
    const later = stamper.stamp({ type: 'step_output', stepId: 's1', output: 'later' });
    const before = store.lastSeq;
    const gap = store.appendEvents(runId, later.seq, [later]);
    assert.deepEqual(gap, { kind: 'gap', runId, fromSeq: before + 1, shouldRequest: true, applied: 0 });
    const again = store.appendEvents(runId, later.seq, [later]);
    assert.equal(again.kind === 'gap' && again.shouldRequest, false);
    assert.equal(store.lastSeq, before);
    assert.deepEqual(store.appendEvents(runId, lost.seq, [lost, later]), { kind: 'applied', applied: 2 });
    assert.equal(store.lastSeq, later.seq);
    // An empty batch whose fromSeq skips ahead is a gap too.
    assert.equal(store.appendEvents(runId, store.lastSeq + 3, []).kind, 'gap');
  });

  it('skips events it already has and stops at a gap inside a batch', () => {
    const { store, stamper, runId } = plan();
    const a = stamper.stamp({ type: 'step_output', stepId: 's1', output: 'a' });
    store.appendEvents(runId, a.seq, [a]);
    const b = stamper.stamp({ type: 'step_output', stepId: 's1', output: 'b' });
    stamper.stamp({ type: 'step_output', stepId: 's1', output: 'lost' });
    const d = stamper.stamp({ type: 'step_output', stepId: 's1', output: 'd' });
    const result = store.appendEvents(runId, a.seq, [a, b, d]);
    assert.deepEqual(result, { kind: 'gap', runId, fromSeq: b.seq + 1, shouldRequest: true, applied: 1 });
    assert.equal(store.state.steps.get('s1')!.output, 'b');
  });

  it('asks for a full resync for a batch of a run it never got a reset for', () => {
    const store = new PlanStore();
    const events: RunEvent[] = syntheticPlanEvents(2, new EventStamper(), 'run-x');
    assert.deepEqual(store.appendEvents('run-x', 0, events), { kind: 'gap', runId: 'run-x', fromSeq: 0, shouldRequest: true, applied: 0 });
  });

  /** The demo run (two approvals pending: apr_e2 of s7, apr_f2 of s3) and a way to append events after it. */
  function demoStore(live = true) {
    const store = new PlanStore();
    const { events } = demoPlan();
    store.reset(DEMO_RUN_ID, live, events);
    store.takeChanges();
    const append = (event: NewRunEvent) => {
      const stamped: RunEvent = { ...event, seq: store.lastSeq + 1, time: Date.now() };
      assert.deepEqual(store.appendEvents(DEMO_RUN_ID, stamped.seq, [stamped]), { kind: 'applied', applied: 1 });
    };
    return { store, append };
  }

  it('reads pending approvals from the events; an answer sent from here keeps them visible but not open', () => {
    const { store } = demoStore();
    assert.deepEqual(
      store.openApprovals().map((a) => a.requestId),
      ['apr_e2', 'apr_f2'],
    );
    const replyTo = store.markAnswered('apr_e2', 'approve');
    assert.ok(replyTo);
    assert.equal(store.markAnswered('apr_e2', 'approve'), undefined, 'a double click sends nothing');
    assert.equal(store.markAnswered('apr_e2', 'deny'), undefined);
    assert.equal(store.markAnswered('apr_unknown', 'deny'), undefined, 'only pending requests can be answered');
    assert.deepEqual(
      store.openApprovals().map((a) => a.requestId),
      ['apr_f2'],
    );
    assert.equal(store.visibleApprovals().length, 2, 'answered here: still shown, disabled, until it settles');
    const changes = store.takeChanges();
    assert.ok(changes.approvals && changes.steps.has('s7'));
  });

  it('an accepted answer is settled by its events: the request leaves the list and its mark goes', () => {
    const { store, append } = demoStore();
    const replyTo = store.markAnswered('apr_e2', 'approve')!;
    append({ type: 'approval_answered', stepId: 's7', callId: 'call_e2', requestId: 'apr_e2', decision: 'approve', source: 'panel' });
    assert.deepEqual(store.applyReply({ replyTo, outcome: 'accepted' }), {});
    assert.deepEqual(
      store.visibleApprovals().map((a) => a.requestId),
      ['apr_f2'],
    );
    assert.equal(store.answered.has('apr_e2'), false);
    assert.equal(store.state.steps.get('s7')!.toolCalls.find((c) => c.id === 'call_e2')!.approval!.state, 'approved');
  });

  it('an accepted reply that arrives before its events keeps the buttons disabled', () => {
    const { store } = demoStore();
    const replyTo = store.markAnswered('apr_e2', 'approve')!;
    assert.deepEqual(store.applyReply({ replyTo, outcome: 'accepted' }), {});
    assert.equal(store.answered.get('apr_e2'), 'approve');
    assert.deepEqual(
      store.openApprovals().map((a) => a.requestId),
      ['apr_f2'],
    );
  });

  it('a refused answer re-enables its buttons at once and says why', () => {
    const { store } = demoStore();
    const replyTo = store.markAnswered('apr_e2', 'approve')!;
    store.takeChanges();
    const reply = store.applyReply({
      replyTo,
      outcome: 'refused',
      reason: 'stale_hash',
      message: 'stale answer: the arguments differ from the ones awaiting approval',
    });
    assert.deepEqual(reply, { refused: 'That approval was not applied: stale answer: the arguments differ from the ones awaiting approval' });
    assert.deepEqual(
      store.openApprovals().map((a) => a.requestId),
      ['apr_e2', 'apr_f2'],
    );
    const changes = store.takeChanges();
    assert.ok(changes.approvals && changes.steps.has('s7'));
    assert.deepEqual(store.applyReply({ replyTo, outcome: 'refused', reason: 'stale_hash' }), {}, 'one reply per answer');
    assert.deepEqual(store.applyReply({ replyTo: 'answer-unknown', outcome: 'refused' }), {});
  });

  it('an answer that could not be sent gives its buttons back', () => {
    const { store } = demoStore();
    const replyTo = store.markAnswered('apr_f2', 'deny')!;
    store.answerNotSent(replyTo);
    assert.deepEqual(
      store.openApprovals().map((a) => a.requestId),
      ['apr_e2', 'apr_f2'],
    );
  });

  it('a withdrawn request (the run was cancelled) leaves the list, and the end of the run leaves nothing', () => {
    const { store, append } = demoStore();
    append({ type: 'approval_withdrawn', stepId: 's7', callId: 'call_e2', requestId: 'apr_e2', reason: 'run_cancelled', message: 'cancelled by the user' });
    assert.deepEqual(
      store.visibleApprovals().map((a) => a.requestId),
      ['apr_f2'],
    );
    assert.ok(store.takeChanges().steps.has('s7'));
    append({ type: 'run_finished', status: 'failed', plan: toSnapshot(store.state) });
    assert.deepEqual(store.visibleApprovals(), [], 'nothing to answer once the run is over');
    const changes = store.takeChanges();
    assert.ok(changes.approvals && changes.steps.has('s3'), 'the node that had buttons is restyled');
  });

  it('a run replayed from its trace (not live) offers no approvals', () => {
    const { store } = demoStore(false);
    assert.deepEqual(store.visibleApprovals(), []);
    assert.equal(store.markAnswered('apr_e2', 'approve'), undefined);
  });

  it('keeps answers in flight across a reset of the same run and forgets them for another run', () => {
    const { store } = demoStore();
    const replyTo = store.markAnswered('apr_e2', 'approve')!;
    store.reset(DEMO_RUN_ID, true, demoPlan().events);
    assert.equal(store.answered.get('apr_e2'), 'approve');
    assert.ok(store.applyReply({ replyTo, outcome: 'refused', message: 'x' }).refused);
    store.markAnswered('apr_e2', 'approve');
    store.reset('another', true, []);
    assert.equal(store.answered.size, 0);
    assert.deepEqual(store.visibleApprovals(), []);
  });

  it('allows one retry per finished attempt of a step and one cancel', () => {
    const { store, stamper, runId } = plan();
    assert.equal(store.markRetried('s2'), true);
    assert.equal(store.markRetried('s2'), false);
    assert.equal(store.retryPending('s2'), true);
    const finished = stamper.stamp({ type: 'step_status_changed', stepId: 's2', status: 'blocked', reason: 'approval_denied' });
    store.appendEvents(runId, finished.seq, [finished]);
    assert.equal(store.retryPending('s2'), false);
    assert.equal(store.markRetried('s2'), true);
    assert.equal(store.markCancelRequested(), true);
    assert.equal(store.markCancelRequested(), false);
  });
});
