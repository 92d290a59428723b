import assert from 'node:assert/strict';
import { parseWebviewMessage } from '../../../src/protocol/messages';
import { DEMO_RUN_ID, demoPlan } from '../../support/plans/demoPlan';
import { EventStamper, syntheticPlanEvents } from '../../support/plans/syntheticPlan';
import { answerAll, approvalAnswer, cancelRun, endpointFixMessage, MAX_FEEDBACK_CHARS, retryStep } from '../../../webview/actions';
import { handleHostMessage } from '../../../webview/messageHandler';
import { readSavedState, readyMessage } from '../../../webview/savedState';
import { PlanStore } from '../../../webview/store';

function demoStore(): PlanStore {
  const store = new PlanStore();
  const { events } = demoPlan();
  handleHostMessage(store, { type: 'host/reset', runId: DEMO_RUN_ID, live: true, events });
  return store;
}

describe('webview message handling', () => {
  it('turns the endpoint-error buttons into valid messages; Retry names the run', () => {
    const store = demoStore();
    const sent = (['setApiKey', 'openSettings', 'retry'] as const).map((fix) => endpointFixMessage(store, fix));
    assert.deepEqual(sent, [{ type: 'endpoint/setApiKey' }, { type: 'endpoint/openSettings' }, { type: 'run/retry', runId: DEMO_RUN_ID }]);
    for (const message of sent) assert.ok(parseWebviewMessage(message).ok, JSON.stringify(message));
    assert.equal(endpointFixMessage(new PlanStore(), 'retry'), undefined, 'no run, nothing to retry');
  });

  it('keeps the plan view the person chose across a reload, and ignores a view it does not know', () => {
    assert.equal(readSavedState({ runId: 'r', planView: 'list' }).planView, 'list');
    assert.deepEqual(readSavedState({ runId: 'r', planView: 'table' }), {}, 'a malformed saved state is dropped whole');
  });

  it('drops invalid host messages with a reason and changes nothing', () => {
    const store = new PlanStore();
    for (const raw of [
      null,
      'host/reset',
      { type: 'host/nope' },
      { type: 'host/events', runId: 'r', fromSeq: -1, events: [] },
      { type: 'host/reset', runId: 'r', live: true, events: [{ type: 'step_added' }] },
    ]) {
      const result = handleHostMessage(store, raw);
      assert.ok(result.error, JSON.stringify(raw));
      assert.equal(result.render, false);
      assert.deepEqual(result.outgoing, []);
    }
    assert.equal(store.runId, undefined);
  });

  it('resets, then applies contiguous batches, and asks for a resync on a gap', () => {
    const store = new PlanStore();
    const stamper = new EventStamper();
    const events = syntheticPlanEvents(3, stamper, 'run-a');
    const reset = handleHostMessage(store, { type: 'host/reset', runId: 'run-a', live: true, events });
    assert.deepEqual(reset.reset, { runId: 'run-a' });
    assert.equal(reset.render, true);
    const next = stamper.stamp({ type: 'step_status_changed', stepId: 's1', status: 'in_progress' });
    assert.deepEqual(handleHostMessage(store, { type: 'host/events', runId: 'run-a', fromSeq: next.seq, events: [next] }), { outgoing: [], render: true });
    stamper.stamp({ type: 'step_output', stepId: 's1', output: 'lost' });
    const after = stamper.stamp({ type: 'step_output', stepId: 's1', output: 'after' });
    const gap = handleHostMessage(store, { type: 'host/events', runId: 'run-a', fromSeq: after.seq, events: [after] });
    assert.deepEqual(gap.outgoing, [{ type: 'webview/resync', runId: 'run-a', fromSeq: next.seq + 1 }]);
    assert.ok(parseWebviewMessage(gap.outgoing[0]).ok);
    assert.deepEqual(handleHostMessage(store, { type: 'host/events', runId: 'run-a', fromSeq: after.seq, events: [after] }).outgoing, [], 'one resync per gap');
  });

  it('passes notices through', () => {
    const store = demoStore();
    const notice = handleHostMessage(store, { type: 'host/notice', level: 'warning', message: 'Trace file is read-only' });
    assert.deepEqual(notice.notice, { type: 'host/notice', level: 'warning', message: 'Trace file is read-only' });
  });

  it("shows a refused answer at once with the host's reason and gives its buttons back", () => {
    const store = demoStore();
    const sent = approvalAnswer(store, store.openApprovals()[0], 'approve')!;
    assert.equal(store.openApprovals().length, 1);
    const reply = handleHostMessage(store, {
      type: 'host/approvalAnswer',
      runId: DEMO_RUN_ID,
      replyTo: sent.replyTo,
      outcome: 'refused',
      reason: 'stale_hash',
      message: 'stale answer: the arguments differ from the ones awaiting approval',
    });
    assert.deepEqual(reply, {
      outgoing: [],
      render: true,
      notice: {
        type: 'host/notice',
        level: 'warning',
        message: 'That approval was not applied: stale answer: the arguments differ from the ones awaiting approval',
      },
    });
    assert.equal(store.openApprovals().length, 2);
  });

  it('"Approve for this run" sends the scope with the answer; a deny never carries one', () => {
    const store = demoStore();
    const [approval] = store.openApprovals();
    const sent = approvalAnswer(store, approval, 'approve', undefined, 'run')!;
    assert.equal(sent.scope, 'run');
    assert.ok(parseWebviewMessage(sent).ok);
    const other = demoStore();
    assert.equal(approvalAnswer(other, other.openApprovals()[0], 'deny', undefined, 'workspace')!.scope, undefined);
  });

  it('an accepted reply shows nothing; a reply for another run is ignored', () => {
    const store = demoStore();
    const sent = approvalAnswer(store, store.openApprovals()[0], 'approve')!;
    assert.deepEqual(handleHostMessage(store, { type: 'host/approvalAnswer', runId: 'other', replyTo: sent.replyTo, outcome: 'refused', message: 'x' }), {
      outgoing: [],
      render: false,
    });
    assert.deepEqual(handleHostMessage(store, { type: 'host/approvalAnswer', runId: DEMO_RUN_ID, replyTo: sent.replyTo, outcome: 'accepted' }), {
      outgoing: [],
      render: true,
    });
    assert.equal(store.openApprovals().length, 1, 'disabled until the events settle it');
  });
});

describe('webview actions', () => {
  it('answers an approval once, with the exact argsHash, and deny feedback trimmed and capped', () => {
    const store = demoStore();
    const [run, write] = store.openApprovals();
    const approve = approvalAnswer(store, run, 'approve');
    assert.deepEqual(approve, {
      type: 'approval/answer',
      runId: DEMO_RUN_ID,
      requestId: run.requestId,
      callId: run.callId,
      argsHash: run.argsHash,
      decision: 'approve',
      replyTo: approve?.replyTo,
    });
    assert.match(approve.replyTo, /^answer-\d+$/);
    assert.ok(parseWebviewMessage(approve).ok);
    assert.equal(approvalAnswer(store, run, 'approve'), undefined, 'a second click sends nothing');
    assert.equal(approvalAnswer(store, run, 'deny'), undefined);
    const deny = approvalAnswer(store, write, 'deny', `  ${'x'.repeat(MAX_FEEDBACK_CHARS + 10)}  `);
    assert.equal(deny?.type === 'approval/answer' && deny.feedback?.length, MAX_FEEDBACK_CHARS);
    assert.ok(parseWebviewMessage(deny).ok);
  });

  it('omits empty deny feedback and never sends feedback with approve', () => {
    const store = demoStore();
    const [run, write] = store.openApprovals();
    assert.equal((approvalAnswer(store, run, 'deny', '   ') as { feedback?: string }).feedback, undefined);
    assert.equal((approvalAnswer(store, write, 'approve', 'ignored') as { feedback?: string }).feedback, undefined);
  });

  it('"Approve all" answers every open approval exactly once', () => {
    const store = demoStore();
    approvalAnswer(store, store.openApprovals()[0], 'deny');
    const all = answerAll(store, 'approve');
    assert.deepEqual(
      all.map((m) => m.type === 'approval/answer' && m.requestId),
      ['apr_f2'],
    );
    assert.deepEqual(answerAll(store, 'approve'), []);
  });

  it('cancels a running run once and retries a step once per attempt', () => {
    const store = demoStore();
    assert.deepEqual(cancelRun(store), { type: 'run/cancel', runId: DEMO_RUN_ID });
    assert.equal(cancelRun(store), undefined);
    assert.deepEqual(retryStep(store, 's8'), { type: 'step/retry', runId: DEMO_RUN_ID, stepId: 's8' });
    assert.equal(retryStep(store, 's8'), undefined);
    const idle = new PlanStore();
    assert.equal(cancelRun(idle), undefined, 'nothing to cancel before a run');
  });
});

describe('webview saved state', () => {
  it('restores a valid state and ignores a malformed one', () => {
    assert.deepEqual(readSavedState({ runId: 'r', selectedStepId: 's1', view: { k: 0.5, x: 1, y: 2 }, autoFit: false }), {
      runId: 'r',
      selectedStepId: 's1',
      view: { k: 0.5, x: 1, y: 2 },
      autoFit: false,
    });
    assert.deepEqual(readSavedState({ runId: 7 }), {});
    assert.deepEqual(readSavedState(undefined), {});
    assert.deepEqual(readSavedState({ view: { k: null, x: 0, y: 0 } }), {});
  });

  it('says hello with the run a reloaded panel had', () => {
    assert.deepEqual(readyMessage({}), { type: 'webview/ready' });
    const ready = readyMessage({ runId: 'r' });
    assert.deepEqual(ready, { type: 'webview/ready', runId: 'r' });
    assert.ok(parseWebviewMessage(ready).ok);
  });
});
