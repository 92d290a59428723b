import assert from 'node:assert/strict';
import { attachCliApprovals } from '../../../src/cli/cliApprovals';
import { attachCliPlanApprovals } from '../../../src/cli/cliPlanApprovals';
import { terminalQuestions } from '../../../src/cli/terminalQuestions';
import type { PlanApprovalProposal } from '../../../src/core/policy/planApprovalBroker';
import { approvalRun } from '../policy/approvalFixtures';
import { fakeTerminal } from '../../support/fakeTerminal';

// A call approval (a drift, a command) and a widening replan can wait at the same time; on a
// terminal they are asked one after the other, so one answer line answers one question.

const WIDENING_REPLAN: PlanApprovalProposal = {
  kind: 'replan',
  failedStepId: 's1',
  steps: [{ description: 'Install the parser', scope: { commands: ['npm install sh-syntax'] }, dependsOn: [] }],
  widening: [{ index: 0, write: [], commands: ['npm install sh-syntax'] }],
  attempt: 1,
};

const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

describe('CLI questions on one terminal', () => {
  it('a call approval and a replan approval pending together are asked in turn: a "y" for the first never answers the second', async () => {
    const run = approvalRun();
    const terminal = fakeTerminal();
    const { input, output } = terminal;
    const io = { input, output };
    const questions = terminalQuestions(io);
    const detachCalls = attachCliApprovals(run.broker, undefined, io, questions);
    const detachPlans = attachCliPlanApprovals(run.broker.plans, undefined, io, questions);
    try {
      const call = run.ask('c1');
      const replan = run.broker.plans.request(WIDENING_REPLAN);
      await settle();
      assert.match(terminal.shown(), /run_command \(step s1\): `echo c1`/);
      assert.doesNotMatch(terminal.shown(), /redesign of s1/, 'the second question waits for the first answer');
      input.write('y\n');
      assert.equal((await call.outcome).decision, 'approve');
      await settle();
      assert.match(terminal.shown(), /The redesign of s1 needs more than the approved plan/);
      input.write('n\n');
      assert.equal((await replan.outcome).decision, 'deny', 'the replan got its own answer, not the "y" typed for the call');
    } finally {
      detachCalls();
      detachPlans();
    }
  });

  it('a question answered meanwhile is not asked', async () => {
    const terminal = fakeTerminal();
    const { input, output } = terminal;
    const questions = terminalQuestions({ input, output });
    const first = questions.ask(() => 'first? ');
    const second = questions.ask(
      () => 'second? ',
      () => false,
    );
    await settle();
    input.write('yes\n');
    assert.equal(await first, 'yes');
    assert.equal(await second, undefined);
    assert.doesNotMatch(terminal.shown(), /second\?/);
  });
});
