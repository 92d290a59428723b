import assert from 'node:assert/strict';
import { proveStep } from '../../../src/core/agent/verifier';
import type { CheckRecord } from '../../../src/core/plan/events';
import { addToolCallEvent, startStepEvent, updateToolResultEvent } from '../../../src/core/plan/planOperations';
import type { StepState } from '../../../src/core/plan/planTypes';
import { checkClaims } from '../../../src/core/verify/claimChecks';
import { newLog } from '../plan/planFixtures';

/** A running step built through the real events, with optional expects and calls. */
function step(
  options: {
    expects?: unknown[];
    calls?: Array<{ name: string; args: Record<string, unknown>; status: 'success' | 'error' | 'pending'; exitCode?: number }>;
  } = {},
): StepState {
  const log = newLog();
  log.append({
    type: 'step_added',
    stepId: 's1',
    description: 'd',
    dependsOn: [],
    lineage: 's1',
    replanAttempts: 0,
    origin: 'planner',
    ...(options.expects ? { expects: options.expects as never } : {}),
  });
  log.append(startStepEvent(log.state, 's1'));
  (options.calls ?? []).forEach((c, i) => {
    log.append(addToolCallEvent(log.state, 's1', { id: `c${i}`, name: c.name, arguments: c.args }));
    if (c.status !== 'pending') log.append(updateToolResultEvent(log.state, 's1', `c${i}`, { status: c.status, result: 'r', exitCode: c.exitCode }));
  });
  return log.state.steps.get('s1')!;
}

const held: CheckRecord = { kind: 'exists', check: 'exists a', passed: true, detail: 'a exists' };
const broken: CheckRecord = { kind: 'changed', check: 'changed b', passed: false, detail: 'no file matching b changed' };
const prove = (s: StepState, answer: string, post: CheckRecord[] = [], requireVerified = false) =>
  proveStep(s, undefined, { postconditions: post, claims: checkClaims(s, answer, '/ws', post), requireVerified });

describe('the verdict: verified, unverified, failed (docs/design.md, “The verifier and how a step ends”)', () => {
  it('no calls, no checks, no claims: unverified (and no longer "passed: no tool calls to verify")', () => {
    const { verdict, failure } = prove(step(), 'Here is a summary of the plan.');
    assert.equal(verdict.verdict, 'unverified');
    assert.equal(verdict.passed, true);
    assert.equal(failure, undefined);
    assert.match(verdict.reason, /^unverified: no checks declared and no claim to check/);
  });

  it('--require-verified fails an unverified step with no_evidence, but not one that declared expects: []', () => {
    assert.equal(prove(step(), 'Summary.', [], true).failure, 'no_evidence');
    const waived = prove(step({ expects: [] }), 'Summary.', [], true);
    assert.equal(waived.verdict.passed, true);
    assert.equal(waived.verdict.verdict, 'unverified');
  });

  it('a claim without any call fails the step as unbacked_claim, quoting the sentence', () => {
    const { verdict, failure } = prove(step(), 'I added test/date.test.js with three cases. Ran npm test: all 12 tests pass.');
    assert.equal(failure, 'unbacked_claim');
    assert.equal(verdict.verdict, 'failed');
    assert.match(
      verdict.reason,
      /^unbacked_claim: "I added test\/date\.test\.js with three cases\.": this step recorded no change of test\/date\.test\.js \(it changed no file\) \(and 1 more failed check\)/,
    );
    assert.deepEqual(
      verdict.checks?.map((c) => [c.kind, c.passed]),
      [
        ['claim', false],
        ['claim', false],
      ],
    );
  });

  it('expects: [] still fails on an unbacked claim', () => {
    assert.equal(prove(step({ expects: [] }), 'I fixed src/a.ts.').failure, 'unbacked_claim');
  });

  it('a failed postcondition fails the step first, naming the check', () => {
    const { verdict, failure } = prove(step(), 'ok', [held, broken]);
    assert.equal(failure, 'postcondition_failed');
    assert.equal(verdict.reason, 'postcondition_failed: changed b: no file matching b changed');
  });

  it('every check held: verified, with the checks and their evidence kept', () => {
    const s = step({ calls: [{ name: 'write_file', args: { path: 'src/a.ts' }, status: 'success' }] });
    const { verdict } = prove(s, 'I updated src/a.ts.', [held]);
    assert.equal(verdict.verdict, 'verified');
    assert.equal(verdict.checks?.length, 2);
    assert.deepEqual(verdict.checks?.[1].evidence, { callId: 'c0', path: 'src/a.ts' });
  });

  it('a claimed file that is not the one written fails', () => {
    const s = step({ calls: [{ name: 'write_file', args: { path: 'src/b.ts' }, status: 'success' }] });
    const { verdict } = prove(s, 'I created src/a.ts.');
    assert.match(verdict.reason, /no change of src\/a\.ts \(it changed src\/b\.ts\)/);
  });

  it('a passing claim needs a command of the step that exited 0, or a command check that held', () => {
    const failing = step({ calls: [{ name: 'run_command', args: { command: 'npm test' }, status: 'error', exitCode: 1 }] });
    assert.match(prove(failing, 'All tests pass.').verdict.reason, /no command of this step succeeded \(call c0 exited 1\)/);
    const passing = step({ calls: [{ name: 'run_command', args: { command: 'npm test' }, status: 'success', exitCode: 0 }] });
    assert.equal(prove(passing, 'All tests pass.').verdict.verdict, 'verified');
    const commandCheck: CheckRecord = {
      kind: 'command',
      check: '`npm test` exits 0',
      passed: true,
      detail: 'it exited 0',
      evidence: { callId: 'v1', exitCode: 0 },
    };
    assert.equal(prove(step(), 'All tests pass.', [commandCheck]).verdict.verdict, 'verified');
  });

  it('unanswered calls fail the step before anything else', () => {
    const { verdict, failure } = prove(step({ calls: [{ name: 'write_file', args: { path: 'a' }, status: 'pending' }] }), 'I wrote a.txt.', [held]);
    assert.equal(verdict.passed, false);
    assert.equal(failure, undefined);
    assert.equal(verdict.checks?.[0].kind, 'pending_calls');
  });
});
