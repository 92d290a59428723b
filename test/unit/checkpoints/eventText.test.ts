import assert from 'node:assert/strict';
import { createPlanState } from '../../../src/core/plan/reducer';
import { formatEvent } from '../../../src/core/trace/eventText';

// The CLI's progress lines and the output channel say what a call changed and what a revert did.

describe('progress lines of file changes and reverts', () => {
  const state = createPlanState();
  it('names each changed file with its kind and line counts, and what cannot be put back', () => {
    const line = formatEvent(
      {
        seq: 5,
        time: 1,
        type: 'files_changed',
        stepId: 's1',
        callId: 'c1',
        changes: [
          { path: 'docs', kind: 'created', before: null, after: null, restorable: true, directory: true },
          { path: 'docs/a.md', kind: 'created', before: null, after: 'a'.repeat(64), restorable: true, added: 3, removed: 0 },
          { path: 'old.txt', kind: 'deleted', before: 'b'.repeat(64), after: null, restorable: true, added: 0, removed: 1 },
          { path: 'big.bin', kind: 'modified', before: null, after: 'c'.repeat(64), restorable: false, binary: true },
        ],
      },
      state,
    );
    assert.equal(line, '    s1 changed docs/ (new folder), docs/a.md (new, +3 -0), old.txt (deleted, +0 -1), big.bin (modified, binary, not restorable)');
  });
  it('says how many paths a revert put back and which it left alone', () => {
    const event = {
      seq: 9,
      time: 2,
      type: 'files_reverted' as const,
      reason: 'replan' as const,
      stepIds: ['s2', 's3'],
      files: [
        { path: 'a', from: 'a'.repeat(64), to: null },
        { path: 'same', from: 'b'.repeat(64), to: 'b'.repeat(64) },
      ],
      conflicts: [{ path: 'b', reason: 'changed_since' as const, detail: 'x' }],
    };
    assert.equal(formatEvent(event, state), '  reverted s2, s3 (replan): 1 path put back; left alone: b (changed since)');
    assert.equal(formatEvent({ ...event, reason: 'undo', undoes: 4, conflicts: [] }, state), '  undid the revert of s2, s3: 1 path put back');
  });
});
