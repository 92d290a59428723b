import assert from 'node:assert/strict';
import { parseRunPlanInput, runPlanConfirmation, taskWithScope } from '../../../src/host/runPlanInput';

// The cortex_runVerifiedPlan tool's input (docs/design.md, “Cortex as a tool of other agents”): a
// bad input is a sentence the calling model can act on, never a crash or a run of nothing.

describe('cortex_runVerifiedPlan input', () => {
  it('accepts a task and an optional scope, trimmed', () => {
    assert.deepEqual(parseRunPlanInput({ task: '  Add a flag ' }), { task: 'Add a flag' });
    assert.deepEqual(parseRunPlanInput({ task: 'Add a flag', scope: ' src/cli ' }), { task: 'Add a flag', scope: 'src/cli' });
    assert.deepEqual(parseRunPlanInput({ task: 'Add a flag', scope: '  ' }), { task: 'Add a flag' });
  });

  it('says what is wrong with a missing task, a wrong scope or an oversized input', () => {
    assert.throws(() => parseRunPlanInput(undefined), /The input needs "task": the coding task for Cortex/);
    assert.throws(() => parseRunPlanInput({ task: '   ' }), /The input needs "task"/);
    assert.throws(() => parseRunPlanInput({ task: 7 }), /The input needs "task"/);
    assert.throws(() => parseRunPlanInput({ task: 'x', scope: ['src'] }), /"scope" must be a string naming the files or folders/);
    assert.throws(() => parseRunPlanInput({ task: 'x'.repeat(20_001) }), /"task" is 20001 characters; give Cortex a task of at most 20000/);
  });

  it('tells the planner the scope, and the person what will happen', () => {
    assert.equal(taskWithScope({ task: 'Fix it' }), 'Fix it');
    assert.equal(taskWithScope({ task: 'Fix it', scope: 'src/a' }), 'Fix it\n\nScope: keep the work within src/a (workspace-relative).');
    const trusted = runPlanConfirmation({ task: 'Fix\nit', scope: 'src/a' }, 'proj', true);
    assert.equal(trusted.title, 'Run a verified Cortex plan?');
    assert.match(trusted.message, /Cortex will plan “Fix it” within src\/a as checked steps in proj/);
    assert.match(trusted.message, /approvals and policy/);
    assert.match(runPlanConfirmation({ task: 'Fix it' }, undefined, false).message, /Restricted Mode: Cortex only reads and searches files/);
  });
});
