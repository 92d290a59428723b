import assert from 'node:assert/strict';
import { pendingApprovals } from '../../../src/core/plan/approvalState';
import type { ToolCallRecord } from '../../../src/core/plan/planTypes';
import { foldEvents } from '../../../src/core/plan/reducer';
import { demoPlan } from '../../support/plans/demoPlan';
import { blockedLabel, canRetry, chipView, lineageReplans, pickChips, replacedLabel, replanSummary, stepView } from '../../../webview/stepView';

function call(id: string, status: ToolCallRecord['status'], name = 'read_file'): ToolCallRecord {
  return {
    id,
    index: 0,
    turn: 1,
    name,
    requestedName: name,
    nameResolution: 'exact',
    arguments: '{}',
    rawArguments: '{}',
    isComplete: true,
    finishReason: 'tool_calls',
    status,
    requestedAt: 0,
  };
}

describe('webview step view', () => {
  const { events, approvals } = demoPlan();
  const state = foldEvents(events);

  it('labels replaced steps with their replan and what replaced them', () => {
    const s2 = state.replacedSteps.get('s2')!;
    assert.equal(replacedLabel(state, s2), 'replaced by replan 1 of 2');
    const view = stepView(state, s2, true);
    assert.equal(view.replaced, true);
    assert.equal(view.meta, 'replaced by replan 1 of 2 → s5, s6, s7');
    assert.deepEqual(
      view.tags.map((t) => t.text),
      ['replaced'],
    );
    assert.match(view.ariaLabel, /^Step s2: Add zod validation .*\. Failed, replaced by replan 1 of 2\. 2 tool calls$/);
    assert.deepEqual(view.approvals, [], 'a replaced step offers no actions');
  });

  it('marks steps added by a replan as new', () => {
    const view = stepView(state, state.steps.get('s5')!, false);
    assert.equal(view.isNew, true);
    assert.deepEqual(view.tags, [{ text: 'new', title: 'added by replan 1 of 2', kind: 'new' }]);
    assert.equal(stepView(state, state.steps.get('s1')!, false).isNew, false);
  });

  it('names the failed step a step of a streaming redesign redesigns, before its replan is recorded', () => {
    const streaming = foldEvents([
      ...events.filter((e) => e.type === 'run_started'),
      { type: 'step_added', seq: 1, time: 1, stepId: 's1', description: 'a', dependsOn: [], lineage: 's1', replanAttempts: 0, origin: 'planner' },
      {
        type: 'step_added',
        seq: 2,
        time: 2,
        stepId: 's2',
        description: 'b',
        dependsOn: [],
        lineage: 's1',
        replanAttempts: 1,
        origin: 'replan',
        redesignOf: 's1',
      },
    ]);
    assert.deepEqual(stepView(streaming, streaming.steps.get('s2')!, false).tags, [
      { text: 'new', title: 'added by the redesign of s1, still streaming', kind: 'new' },
    ]);
  });

  it('says which failure or denial blocked a step', () => {
    assert.equal(blockedLabel(state, state.steps.get('s9')!), 'blocked by s8 (approval denied)');
    assert.equal(blockedLabel(state, state.steps.get('s8')!), 'blocked: approval denied');
    assert.equal(blockedLabel(state, state.steps.get('s1')!), '', 'only blocked steps');
    assert.equal(stepView(state, state.steps.get('s9')!, false).meta, 'blocked by s8 (approval denied)');
  });

  it('offers Retry only for a step that ended on a denied required approval', () => {
    assert.equal(canRetry(state.steps.get('s8')!, false), true);
    assert.equal(canRetry(state.steps.get('s9')!, false), false);
    assert.equal(stepView(state, state.steps.get('s8')!, false, { retryPending: () => true }).retry, 'sent');
    assert.equal(stepView(state, state.steps.get('s8')!, false).retry, 'available');
  });

  it('reads the pending approvals from the plan, oldest first, with what would run', () => {
    assert.deepEqual(pendingApprovals(state), approvals);
  });

  it('attaches the pending approvals of the step, with what this panel already sent', () => {
    const view = stepView(state, state.steps.get('s7')!, false, { approvals: pendingApprovals(state), answered: new Map([['apr_e2', 'approve' as const]]) });
    assert.equal(view.approvals.length, 1);
    assert.equal(view.approvals[0].approval.callId, 'call_e2');
    assert.equal(view.approvals[0].sent, 'approve');
    assert.equal(view.meta, 'awaiting approval: npm test -- --grep "cli flags"');
    assert.match(view.ariaLabel, /1 approval pending$/);
  });

  it('builds chips with status icons and requested-vs-resolved names', () => {
    const s1 = state.steps.get('s1')!;
    const chips = stepView(state, s1, false).chips;
    assert.deepEqual(
      chips.map((c) => `${c.icon} ${c.label}`),
      ['check read_file', 'check search_files'],
    );
    assert.equal(chips[1].title, 'search_files (requested as “grep”, alias): success');
    assert.deepEqual(
      ['pending', 'success', 'error', 'awaiting_approval', 'rejected'].map((s) => chipView(call('c', s as ToolCallRecord['status'])).icon),
      ['loading', 'check', 'error', 'shield', 'circle-slash'],
    );
  });

  it('keeps approvals, errors and pending calls when there are more calls than chips', () => {
    const calls = [
      call('a', 'success'),
      call('b', 'error'),
      call('c', 'success'),
      call('d', 'success'),
      call('e', 'awaiting_approval'),
      call('f', 'pending'),
      call('g', 'success'),
    ];
    const { chips, more } = pickChips(calls, 4);
    assert.equal(more, 3);
    assert.deepEqual(
      chips.map((c) => c.callId),
      ['b', 'e', 'f', 'g'],
      'kept in call order',
    );
    assert.deepEqual(pickChips(calls.slice(0, 2), 4).more, 0);
  });

  it('collects the replan history of a lineage', () => {
    const s5 = state.steps.get('s5')!;
    const records = lineageReplans(state, s5);
    assert.equal(records.length, 1);
    assert.equal(
      replanSummary(records[0]),
      'Replan 1 of 2 (redesign) after s2 failed · reason: The edit did not match the file; split the work: schema first, then wire it in. · replaced s2, s4 · new s5, s6, s7',
    );
    assert.deepEqual(lineageReplans(state, state.steps.get('s1')!), []);
  });
});
