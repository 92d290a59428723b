import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { attachCliPlanApprovals } from '../../../src/cli/cliPlanApprovals';
import { planApprovalPrompt } from '../../../src/cli/planApprovalPrompt';
import { EventLog } from '../../../src/core/plan/eventLog';
import type { PlanApprovalProposal } from '../../../src/core/policy/planApprovalBroker';
import { ApprovalBroker } from '../../../src/core/policy/approvalBroker';
import { fakeTerminal } from '../../support/fakeTerminal';

// Plan approvals in the terminal (docs/design.md, “Step scopes and plan approval”): the plan with
// each step's scope and checks, terminal-safe; y approves, n denies, other words are the feedback;
// --approve plan approves the plan but never a widening replan.

const PROPOSAL: PlanApprovalProposal = {
  kind: 'plan',
  title: 'Dates\u001b[2J',
  steps: [
    { description: 'Write src/date.js', scope: { write: ['src/**'] }, expects: [{ changed: 'src/date.js' }], dependsOn: [] },
    { description: 'Run the tests', scope: { commands: ['npm test'] }, dependsOn: [0] },
  ],
  attempt: 1,
};

function broker() {
  const approvals = new ApprovalBroker();
  approvals.bind(new EventLog());
  return approvals;
}

async function answerOnTty(reply: string, proposal = PROPOSAL) {
  const approvals = broker();
  const terminal = fakeTerminal();
  const { input, output } = terminal;
  const detach = attachCliPlanApprovals(approvals.plans, undefined, { input, output });
  const { outcome } = approvals.plans.request(proposal);
  await new Promise((resolve) => setTimeout(resolve, 20));
  input.write(`${reply}\n`);
  const result = await outcome;
  detach();
  return { result, shown: terminal.shown() };
}

describe('CLI plan approvals', () => {
  it('the prompt lists each step with its scope, checks and what a replan adds, terminal-safe', () => {
    const prompt = planApprovalPrompt({ ...PROPOSAL, requestId: 'r', state: 'pending', askedAt: 0 });
    assert.match(prompt, /Approve the plan "Dates\\x1b\[2J" \(2 steps\)/);
    assert.match(prompt, /1\. Write src\/date\.js\n {5}scope: write: src\/\*\*; commands: none\n {5}checks: changed src\/date\.js/);
    assert.match(prompt, /2\. Run the tests \(after 1\)\n {5}scope: write: nothing; commands: `npm test`/);
    const replan = planApprovalPrompt({
      kind: 'replan',
      failedStepId: 's2',
      steps: [{ description: 'Install', scope: { commands: ['npm install x'] }, dependsOn: [] }],
      widening: [{ index: 0, write: [], commands: ['npm install x'] }],
      attempt: 1,
      requestId: 'r',
      state: 'pending',
      askedAt: 0,
    });
    assert.match(replan, /The redesign of s2 needs more than the approved plan:[\s\S]*NEW: run `npm install x`/);
  });

  it('y approves, n denies, other words are the feedback', async () => {
    assert.deepEqual((await answerOnTty('y')).result, { decision: 'approve', source: 'cli-tty' });
    assert.deepEqual((await answerOnTty('n')).result, { decision: 'deny', source: 'cli-tty' });
    assert.deepEqual((await answerOnTty('  only write src/date.js ')).result, { decision: 'deny', feedback: 'only write src/date.js', source: 'cli-tty' });
  });

  it('--approve plan approves the plan, not a widening replan (asked on a terminal, denied without one)', async () => {
    const approvals = broker();
    const input = Object.assign(new PassThrough(), { isTTY: false });
    const detach = attachCliPlanApprovals(approvals.plans, 'plan', { input, output: new PassThrough() });
    assert.deepEqual(await approvals.plans.request(PROPOSAL).outcome, { decision: 'approve', source: 'cli --approve plan' });
    const replan = await approvals.plans.request({ ...PROPOSAL, kind: 'replan', failedStepId: 's1', widening: [{ index: 0, write: ['lib/**'], commands: [] }] })
      .outcome;
    assert.equal(replan.decision, 'deny');
    detach();
  });

  it('an answer must quote the pending request: unknown, repeated and late answers are refused', async () => {
    const approvals = broker();
    const { requestId, outcome } = approvals.plans.request(PROPOSAL);
    assert.deepEqual(approvals.plans.answer({ requestId: 'other', approved: true }), {
      accepted: false,
      reason: 'unknown_request',
      message: 'unknown plan approval request',
    });
    assert.deepEqual(approvals.plans.answer({ requestId, approved: true }), { accepted: true });
    assert.equal(approvals.plans.answer({ requestId, approved: false }).accepted, false);
    assert.equal((await outcome).decision, 'approve');
    assert.equal(approvals.plans.answer({ requestId: 5 as never, approved: true }).accepted, false);
  });
});
