import assert from 'node:assert/strict';
import { EventLog } from '../../../src/core/plan/eventLog';
import { eventTextLevel, formatEvent } from '../../../src/core/trace/eventText';

describe('event text (CLI progress and the log channel)', () => {
  const log = new EventLog({ now: () => 1 });
  log.append({ type: 'step_added', stepId: 's1', description: 'Write a file', dependsOn: [], lineage: 's1', replanAttempts: 0, origin: 'planner' });
  log.append({
    type: 'tool_call_requested',
    stepId: 's1',
    call: {
      id: 'c1',
      index: 0,
      turn: 1,
      name: 'write_file',
      requestedName: 'writeFile',
      nameResolution: 'normalized',
      arguments: '{"path":"a"}',
      rawArguments: '{"path":"a"}',
      isComplete: true,
      finishReason: 'tool_calls',
    },
  });

  it('says which step moved and which call ran, with marks per status', () => {
    const done = log.append({ type: 'tool_call_completed', stepId: 's1', callId: 'c1', status: 'error', result: 'Error: disk\nfull', error: true });
    assert.equal(formatEvent(done, log.state), '    s1 ✗ write_file: Error: disk full');
    assert.equal(eventTextLevel(done), 'debug');
  });

  it('keeps batch timings and failovers for the verbose log only', () => {
    const audit = log.append({ type: 'step_audit', stepId: 's1', kind: 'tool_batch', data: { executed: 2, maxCallMs: 12, totalMs: 20 } });
    assert.equal(formatEvent(audit, log.state), undefined);
    assert.match(formatEvent(audit, log.state, true)!, /tool_batch: .*"maxCallMs":12.*"totalMs":20/);
    const llm = log.append({
      type: 'llm_request',
      purpose: 'executor',
      stepId: 's1',
      requestedModel: 'a',
      usedModel: 'b',
      attempts: [{}, {}],
      ok: true,
      durationMs: 5,
    });
    assert.match(formatEvent(llm, log.state, true)!, /executor s1: b \(failover from a\), 5 ms, 2 attempt/);
  });

  it('marks failures as warnings', () => {
    const failed = log.append({ type: 'llm_request', purpose: 'planner', requestedModel: 'a', attempts: [], ok: false, error: 'Cannot reach', durationMs: 1 });
    assert.equal(eventTextLevel(failed), 'warn');
    assert.equal(formatEvent(failed, log.state, true), '  planner request failed: Cannot reach');
    const verdict = log.append({ type: 'step_verified', stepId: 's1', passed: false, reason: '1 pending', failedCallIds: ['c1'] });
    assert.equal(eventTextLevel(verdict), 'warn');
  });

  it('says a run failure once: on the last line of the run, not also on the request or the step', () => {
    const attempt = (errorKind: string) => [{ model: 'a', ok: false, durationMs: 1, errorKind }];
    const planner = log.append({
      type: 'llm_request',
      purpose: 'planner',
      requestedModel: 'a',
      attempts: attempt('unreachable'),
      ok: false,
      error: 'Cannot reach X.',
      durationMs: 1,
    });
    assert.equal(formatEvent(planner, log.state), undefined);
    const fatal = log.append({
      type: 'llm_request',
      purpose: 'executor',
      stepId: 's1',
      requestedModel: 'a',
      attempts: attempt('auth'),
      ok: false,
      error: 'Key rejected.',
      durationMs: 1,
    });
    assert.equal(formatEvent(fatal, log.state), undefined);
    const stepFailed = log.append({ type: 'step_status_changed', stepId: 's1', status: 'failed', reason: 'llm_error: Key rejected.' });
    assert.equal(formatEvent(stepFailed, log.state), '  s1 → failed (llm_error)');
    assert.equal(formatEvent(stepFailed, log.state, true), '  s1 → failed (llm_error: Key rejected.)');
    const finished = log.append({
      type: 'run_finished',
      status: 'failed',
      error: 'Key rejected.',
      plan: { runId: 'r', task: 't', title: '', status: 'failed', steps: [], replacedSteps: [], replans: [] } as never,
    });
    assert.equal(formatEvent(finished, log.state), 'run failed: Key rejected.');
  });

  it('a failed executor request the run survives is said by its own line', () => {
    const survivable = log.append({
      type: 'llm_request',
      purpose: 'executor',
      stepId: 's1',
      requestedModel: 'a',
      attempts: [{ model: 'a', ok: false, durationMs: 1, status: 400, errorKind: 'bad_request' }],
      ok: false,
      error: 'Context too long.',
      durationMs: 1,
    });
    assert.equal(formatEvent(survivable, log.state), '  executor s1 request failed: Context too long.');
  });

  it('shows the failover warning, and the verbose line names the failover only where it happened', () => {
    const notice = log.append({ type: 'log', level: 'warn', message: 'model a not found at http://h/v1 — using b' });
    assert.equal(formatEvent(notice, log.state), '  warn: model a not found at http://h/v1 — using b');
    const sticky = log.append({
      type: 'llm_request',
      purpose: 'executor',
      stepId: 's1',
      requestedModel: 'b',
      usedModel: 'b',
      attempts: [{ model: 'b', ok: true, durationMs: 1 }],
      ok: true,
      durationMs: 5,
    });
    assert.doesNotMatch(formatEvent(sticky, log.state, true)!, /failover/);
  });
});
