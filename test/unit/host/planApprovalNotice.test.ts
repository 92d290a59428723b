import assert from 'node:assert/strict';
import { EventLog } from '../../../src/core/plan/eventLog';
import { PlanApprovalBroker } from '../../../src/core/policy/planApprovalBroker';
import { watchPlanApprovals } from '../../../src/host/planApprovalNotice';

// A plan approval while the panel is hidden gets one notification offering the panel; with the
// panel visible, none (docs/design.md, “Step scopes and plan approval”).

describe('plan approval notice', () => {
  it('notifies once per request while the panel is hidden, and shows the panel on request', async () => {
    const plans = new PlanApprovalBroker();
    plans.bind(new EventLog());
    const notices: string[] = [];
    const shown: string[] = [];
    let visible = false;
    const stop = watchPlanApprovals(plans, 'run-1', 'Add parseDate', {
      isPanelVisible: () => visible,
      notify: (text) => {
        notices.push(text);
        return Promise.resolve(true);
      },
      showPanel: (id) => shown.push(id),
    });
    const first = plans.request({ kind: 'plan', steps: [{ description: 'a', dependsOn: [] }], attempt: 1 });
    await new Promise((resolve) => setTimeout(resolve, 0));
    assert.deepEqual(notices, ['Cortex: the plan for "Add parseDate" (1 step) waits for your approval.']);
    assert.deepEqual(shown, ['run-1']);
    plans.answer({ requestId: first.requestId, approved: false, feedback: 'smaller' });
    visible = true;
    plans.request({ kind: 'plan', steps: [], attempt: 2 });
    await new Promise((resolve) => setTimeout(resolve, 0));
    assert.equal(notices.length, 1, 'a visible panel shows the plan itself');
    stop();
  });
});
