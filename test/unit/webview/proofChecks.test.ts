import assert from 'node:assert/strict';
import type { StepState } from '../../../src/core/plan/planTypes';
import { proofCheckViews, proofOf } from '../../../webview/proofChecks';

const base: StepState = {
  id: 's1',
  description: 'd',
  status: 'failed',
  dependsOn: [],
  lineage: 's1',
  replanAttempts: 0,
  origin: 'planner',
  files: [],
  toolCalls: [],
  audits: [],
};

describe('webview: proof badge and checks (docs/design.md, “The verifier and how a step ends”)', () => {
  it('the badge follows the verdict; a trace from before verdicts reads passed steps as verified', () => {
    assert.equal(proofOf(base), undefined);
    assert.equal(proofOf({ ...base, verdict: { passed: false, reason: 'r', failedCallIds: [] } }), 'failed');
    assert.equal(proofOf({ ...base, verdict: { passed: true, reason: 'r', failedCallIds: [], verdict: 'unverified' } }), 'unverified');
    assert.equal(proofOf({ ...base, verdict: { passed: true, reason: 'r', failedCallIds: [] } }), 'verified');
  });

  it('each check with its evidence; an unbacked claim shows its sentence', () => {
    const step: StepState = {
      ...base,
      verdict: {
        passed: false,
        reason: 'unbacked_claim',
        failedCallIds: [],
        verdict: 'failed',
        checks: [
          {
            kind: 'changed',
            check: 'changed src/*.ts',
            passed: true,
            detail: 'src/a.ts was changed by call c1',
            evidence: { callId: 'c1', path: 'src/a.ts', changeSeq: 9 },
          },
          {
            kind: 'command',
            check: '`npm test` exits 0',
            passed: false,
            detail: 'it exited 1, not 0',
            evidence: { callId: 'verify_s1_1', exitCode: 1, output: '1 failing' },
          },
          { kind: 'claim', check: 'I added test/date.test.js.', passed: false, detail: 'this step recorded no change of test/date.test.js' },
        ],
      },
    };
    assert.deepEqual(proofCheckViews(step), [
      { passed: true, title: 'changed src/*.ts', detail: 'src/a.ts was changed by call c1', callId: 'c1', path: 'src/a.ts' },
      { passed: false, title: '`npm test` exits 0', detail: 'it exited 1, not 0', callId: 'verify_s1_1', output: '1 failing', exitCode: 1 },
      { passed: false, title: 'Unbacked claim', sentence: 'I added test/date.test.js.', detail: 'this step recorded no change of test/date.test.js' },
    ]);
  });
});
