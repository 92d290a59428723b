import assert from 'node:assert/strict';
import { EventLog } from '../../../src/core/plan/eventLog';
import { pendingPlanApproval, planIsApproved } from '../../../src/core/plan/planApprovalFold';
import { toSnapshot } from '../../../src/core/plan/snapshot';

// Plan approval events in the one reducer (docs/design.md, “Step scopes and plan approval”).

describe('plan approval fold', () => {
  const ask = (log: EventLog, requestId: string, kind: 'plan' | 'replan' = 'plan') =>
    log.append({ type: 'plan_approval_requested', requestId, kind, steps: [{ description: 'a', scope: { write: ['src/**'] }, dependsOn: [] }], attempt: 1 });

  it('a request is pending until answered; only an approved plan (not a replan) makes scopes apply', () => {
    const log = new EventLog();
    ask(log, 'r1');
    assert.equal(pendingPlanApproval(log.state)?.requestId, 'r1');
    assert.equal(planIsApproved(log.state), false);
    log.append({ type: 'plan_approval_answered', requestId: 'r1', approved: false, feedback: 'no', source: 'panel' });
    assert.equal(pendingPlanApproval(log.state), undefined);
    assert.deepEqual(
      [log.state.planApprovals?.[0].state, log.state.planApprovals?.[0].feedback, log.state.planApprovals?.[0].answeredBy],
      ['denied', 'no', 'panel'],
    );
    ask(log, 'r2');
    log.append({ type: 'plan_approval_answered', requestId: 'r2', approved: true });
    // A second answer, or one to an unknown request, changes nothing.
    log.append({ type: 'plan_approval_answered', requestId: 'r2', approved: false });
    log.append({ type: 'plan_approval_answered', requestId: 'nope', approved: true });
    assert.equal(log.state.planApprovals?.[1].state, 'approved');
    assert.equal(planIsApproved(log.state), true);
    assert.equal(toSnapshot(log.state).planApprovals?.length, 2);
  });

  it('a new request replaces one left open (a resumed run asks again)', () => {
    const log = new EventLog();
    ask(log, 'old');
    ask(log, 'new');
    assert.equal(pendingPlanApproval(log.state)?.requestId, 'new');
    assert.equal(log.state.planApprovals?.[0].state, 'withdrawn');
    // A repeated request id is ignored.
    ask(log, 'new');
    assert.equal(log.state.planApprovals?.length, 2);
  });
});
