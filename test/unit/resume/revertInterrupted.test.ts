import assert from 'node:assert/strict';
import { DEFAULT_PROTECTED_PATHS } from '../../../src/core/files/protectedPaths';
import { addToolCallEvent, startStepEvent, updateToolResultEvent } from '../../../src/core/plan/planOperations';
import { revertInterruptedChanges } from '../../../src/core/resume/revertInterrupted';
import { examplePlan, sid } from '../plan/planFixtures';

// What a resume says about the partial work of the steps that start again when nothing recorded
// can be put back (the revert itself is exercised through the CLI in test/integration).

const readOnly = (name: string) => name === 'read_file';

function interruptedStep() {
  const { log } = examplePlan();
  log.append(startStepEvent(log.state, sid(0)));
  const call = (id: string, name: string, result?: { status: 'success' | 'error' | 'rejected'; reason?: string }) => {
    log.append(addToolCallEvent(log.state, sid(0), { id, name, arguments: { path: `${id}.txt`, content: 'x' } }));
    if (result) log.append(updateToolResultEvent(log.state, sid(0), id, { status: result.status, result: 'r', reason: result.reason }));
  };
  call('read', 'read_file', { status: 'success' });
  call('refused', 'write_file', { status: 'error', reason: 'policy_denied' });
  call('denied', 'write_file', { status: 'rejected', reason: 'approval_denied' });
  return { log, call };
}

describe('partial changes of restarted steps', () => {
  it('no write that ran: nothing to say', async () => {
    const { log } = interruptedStep();
    const before = log.events.length;
    assert.equal(
      await revertInterruptedChanges({
        log,
        workspaceRoot: '/ws',
        stepIds: [sid(0)],
        maxFileBytes: 1024,
        protectedPaths: DEFAULT_PROTECTED_PATHS,
        runFiles: [],
        isReadOnlyTool: readOnly,
      }),
      'none',
    );
    assert.equal(log.events.length, before, 'reads and calls that never ran changed nothing');
  });

  it('writes that ran or were running without a recorded change are kept, and a warning names them', async () => {
    const { log, call } = interruptedStep();
    call('wrote', 'write_file', { status: 'success' });
    call('running', 'run_command');
    assert.equal(
      await revertInterruptedChanges({
        log,
        workspaceRoot: '/ws',
        stepIds: [sid(0)],
        maxFileBytes: 1024,
        protectedPaths: DEFAULT_PROTECTED_PATHS,
        runFiles: [],
        isReadOnlyTool: readOnly,
      }),
      'kept',
    );
    const warning = log.events.at(-1)!;
    assert.equal(warning.type, 'log');
    assert.match(
      warning.type === 'log' ? warning.message : '',
      /partial changes of the steps that start again remain in the workspace \(s1: wrote \(write_file\), running \(run_command\) may have changed files that were not recorded\)/,
    );
  });
});
