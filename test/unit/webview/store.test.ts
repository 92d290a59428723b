import assert from 'node:assert/strict';
import type { RunEvent } from '../../../src/core/plan/events';
import { DEMO_RUN_ID, demoPlan } from '../../../bench/panelHarness/demoPlan';
import { EventStamper, syntheticPlanEvents } from '../../../bench/panelHarness/syntheticPlan';
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
    const note = stamper.stamp({ type: 'step_note', stepId: 's3', note: 'hi' });
    assert.deepEqual(store.appendEvents(runId, status.seq, [status, note]), { kind: 'applied', applied: 2 });
    let changes = store.takeChanges();
    assert.equal(changes.structure, false);
    assert.deepEqual([...changes.steps].sort(), ['s2', 's3']);
    assert.equal(changes.events, 2);

    const added = stamper.stamp({ type: 'step_added', stepId: 's9', description: 'more', dependsOn: ['s1'], lineage: 's9', replanAttempts: 0, origin: 'planner' });
    store.appendEvents(runId, added.seq, [added]);
    changes = store.takeChanges();
    assert.equal(changes.structure, true);

    const usage = stamper.stamp({ type: 'llm_request', purpose: 'planner', requestedModel: 'm', attempts: [], ok: true, usage: { promptTokens: 3, completionTokens: 4 }, durationMs: 1 });
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
    const lost = stamper.stamp({ type: 'step_note', stepId: 's1', note: 'lost' });
    const later = stamper.stamp({ type: 'step_note', stepId: 's1', note: 'later' });
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
    const a = stamper.stamp({ type: 'step_note', stepId: 's1', note: 'a' });
    store.appendEvents(runId, a.seq, [a]);
    const b = stamper.stamp({ type: 'step_note', stepId: 's1', note: 'b' });
    stamper.stamp({ type: 'step_note', stepId: 's1', note: 'lost' });
    const d = stamper.stamp({ type: 'step_note', stepId: 's1', note: 'd' });
    const result = store.appendEvents(runId, a.seq, [a, b, d]);
    assert.deepEqual(result, { kind: 'gap', runId, fromSeq: b.seq + 1, shouldRequest: true, applied: 1 });
    assert.deepEqual(store.state.steps.get('s1')!.notes, ['a', 'b']);
  });

  it('asks for a full resync for a batch of a run it never got a reset for', () => {
    const store = new PlanStore();
    const events: RunEvent[] = syntheticPlanEvents(2, new EventStamper(), 'run-x');
    assert.deepEqual(store.appendEvents('run-x', 0, events), { kind: 'gap', runId: 'run-x', fromSeq: 0, shouldRequest: true, applied: 0 });
  });

  it('tracks pending approvals: answered ones and finished calls are no longer open', () => {
    const store = new PlanStore();
    const { events, approvals } = demoPlan();
    store.reset(DEMO_RUN_ID, true, events);
    store.takeChanges();
    assert.equal(store.setApprovals('other-run', approvals), false);
    assert.equal(store.setApprovals(DEMO_RUN_ID, approvals), true);
    const changes = store.takeChanges();
    assert.ok(changes.approvals);
    assert.deepEqual([...changes.steps].sort(), ['s3', 's7']);
    assert.equal(store.openApprovals().length, 2);
    assert.equal(store.markAnswered('apr_e2', 'approve'), true);
    assert.equal(store.markAnswered('apr_e2', 'approve'), false);
    assert.deepEqual(store.openApprovals().map((a) => a.requestId), ['apr_f2']);
    assert.equal(store.visibleApprovals().length, 2, 'answered approvals stay visible (disabled) until the host drops them');
    // The call finishes before the host's list catches up.
    const done = { type: 'tool_call_completed', seq: store.lastSeq + 1, time: Date.now(), stepId: 's3', callId: 'call_f2', status: 'success', result: 'ok' } as const;
    store.appendEvents(DEMO_RUN_ID, done.seq, [done]);
    assert.deepEqual(store.openApprovals(), []);
    // The host drops the answered request: its answered mark goes too.
    store.setApprovals(DEMO_RUN_ID, [approvals[1]]);
    assert.equal(store.answered.has('apr_e2'), false);
  });

  it('re-enables an answer the host still lists after the timeout', () => {
    const store = new PlanStore();
    const { events, approvals } = demoPlan();
    store.reset(DEMO_RUN_ID, true, events);
    store.setApprovals(DEMO_RUN_ID, approvals);
    store.markAnswered('apr_e2', 'approve', 1000);
    store.markAnswered('apr_f2', 'deny', 5000);
    store.takeChanges();
    assert.equal(store.expireAnswers(10_000, 15_000), false);
    assert.equal(store.expireAnswers(16_500, 15_000), true);
    assert.deepEqual([...store.answered.keys()], ['apr_f2']);
    assert.ok(store.takeChanges().steps.has('s7'));
    assert.deepEqual(store.openApprovals().map((a) => a.requestId), ['apr_e2']);
  });

  it('keeps approvals that arrived before the reset of the same run', () => {
    const store = new PlanStore();
    const { events, approvals } = demoPlan();
    store.setApprovals(DEMO_RUN_ID, approvals);
    store.reset(DEMO_RUN_ID, true, events);
    assert.equal(store.openApprovals().length, 2);
    store.reset('another', true, []);
    assert.equal(store.approvals.length, 0);
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
