import assert from 'node:assert/strict';
import { EventLog } from '../../../src/core/plan/eventLog';
import { formatEvent } from '../../../src/core/trace/eventText';

// What the CLI and the log channel say about plan approval and drift (docs/design.md, “Step scopes
// and plan approval”): drift is said at any verbosity, and a change that went through outside the
// scope says so.

describe('event text: plan approval and drift', () => {
  it('says the plan approval, its answer, each drift, and a change outside the scope', () => {
    const log = new EventLog({ now: () => 1 });
    const asked = log.append({ type: 'plan_approval_requested', requestId: 'r', kind: 'plan', steps: [{ description: 'a', dependsOn: [] }], attempt: 2 });
    assert.equal(formatEvent(asked, log.state), 'plan approval: 1 step(s) proposed (rewrite 1)');
    const answer = log.append({ type: 'plan_approval_answered', requestId: 'r', approved: false, feedback: 'smaller\nplease', source: 'cli-tty' });
    assert.equal(formatEvent(answer, log.state), 'plan approval: denied (cli-tty): smaller please');
    log.append({
      type: 'step_added',
      stepId: 's1',
      description: 'a',
      scope: { write: ['src/**'] },
      dependsOn: [],
      lineage: 's1',
      replanAttempts: 0,
      origin: 'planner',
    });
    const drift = log.append({
      type: 'step_audit',
      stepId: 's1',
      kind: 'drift',
      data: { callId: 'c2', what: 'writes lib/x.js', scope: { write: ['src/**'] } },
    });
    assert.equal(formatEvent(drift, log.state), '    s1 ⚠ drift: writes lib/x.js (outside the approved scope)');
    const change = (callId: string, path: string) =>
      log.append({ type: 'files_changed', stepId: 's1', callId, changes: [{ path, kind: 'created', before: null, after: null, restorable: true }] });
    assert.match(formatEvent(change('c2', 'lib/x.js'), log.state) ?? '', /s1 changed lib\/x\.js .*\(outside the approved scope\)$/);
    assert.doesNotMatch(formatEvent(change('c1', 'src/a.js'), log.state) ?? '', /outside/);
  });
});
