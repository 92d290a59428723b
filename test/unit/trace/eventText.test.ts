import assert from 'node:assert/strict';
import { EventLog } from '../../../src/core/plan/eventLog';
import { eventTextLevel, formatEvent } from '../../../src/core/trace/eventText';

describe('event text (CLI progress and the log channel)', () => {
  const log = new EventLog({ now: () => 1 });
  log.append({ type: 'step_added', stepId: 's1', description: 'Write a file', dependsOn: [], lineage: 's1', replanAttempts: 0, origin: 'planner' });
  log.append({ type: 'tool_call_requested', stepId: 's1', call: { id: 'c1', index: 0, turn: 1, name: 'write_file', requestedName: 'writeFile', nameResolution: 'normalized', arguments: '{"path":"a"}', rawArguments: '{"path":"a"}', isComplete: true, finishReason: 'tool_calls' } });

  it('says which step moved and which call ran, with marks per status', () => {
    const done = log.append({ type: 'tool_call_completed', stepId: 's1', callId: 'c1', status: 'error', result: 'Error: disk\nfull', error: true });
    assert.equal(formatEvent(done, log.state), '    s1 ✗ write_file: Error: disk full');
    assert.equal(eventTextLevel(done), 'debug');
  });

  it('keeps batch timings and failovers for the verbose log only', () => {
    const audit = log.append({ type: 'step_audit', stepId: 's1', kind: 'tool_batch', data: { executed: 2, maxCallMs: 12, totalMs: 20 } });
    assert.equal(formatEvent(audit, log.state), undefined);
    assert.match(formatEvent(audit, log.state, true)!, /tool_batch: .*"maxCallMs":12.*"totalMs":20/);
    const llm = log.append({ type: 'llm_request', purpose: 'executor', stepId: 's1', requestedModel: 'a', usedModel: 'b', attempts: [{}, {}], ok: true, durationMs: 5 });
    assert.match(formatEvent(llm, log.state, true)!, /executor s1: b \(failover from a\), 5 ms, 2 attempt/);
  });

  it('marks failures as warnings', () => {
    const failed = log.append({ type: 'llm_request', purpose: 'planner', requestedModel: 'a', attempts: [], ok: false, error: 'Cannot reach', durationMs: 1 });
    assert.equal(eventTextLevel(failed), 'warn');
    assert.equal(formatEvent(failed, log.state), '  planner request failed: Cannot reach');
    const verdict = log.append({ type: 'step_verified', stepId: 's1', passed: false, reason: '1 pending', failedCallIds: ['c1'] });
    assert.equal(eventTextLevel(verdict), 'warn');
  });
});
