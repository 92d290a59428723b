import assert from 'node:assert/strict';
import { EventLog } from '../../../src/core/plan/eventLog';

describe('reducer: LLM requests', () => {
  function logWithStep() {
    const log = new EventLog({ now: () => 5 });
    log.append({ type: 'step_added', stepId: 's1', description: 'd', dependsOn: [], lineage: 's1', replanAttempts: 0, origin: 'planner' });
    return log;
  }

  it('adds up token usage across requests', () => {
    const log = logWithStep();
    log.append({
      type: 'llm_request',
      purpose: 'planner',
      requestedModel: 'm',
      usedModel: 'm',
      attempts: [{}],
      ok: true,
      usage: { promptTokens: 10, completionTokens: 2 },
      durationMs: 1,
    });
    log.append({
      type: 'llm_request',
      purpose: 'executor',
      stepId: 's1',
      requestedModel: 'm',
      usedModel: 'm',
      attempts: [{}],
      ok: true,
      usage: { promptTokens: 5, completionTokens: 1 },
      durationMs: 1,
    });
    assert.deepEqual(log.state.usage, { promptTokens: 15, completionTokens: 3 });
  });

  it('records failovers, retries and errors of a step in its audits, and nothing for a plain success', () => {
    const log = logWithStep();
    log.append({
      type: 'llm_request',
      purpose: 'executor',
      stepId: 's1',
      requestedModel: 'm',
      usedModel: 'm',
      attempts: [{ model: 'm', ok: true }],
      ok: true,
      durationMs: 1,
    });
    assert.equal(log.state.steps.get('s1')!.audits.length, 0);
    log.append({
      type: 'llm_request',
      purpose: 'executor',
      stepId: 's1',
      requestedModel: 'm',
      usedModel: 'backup',
      attempts: [
        { model: 'm', ok: false, status: 404 },
        { model: 'backup', ok: true },
      ],
      ok: true,
      durationMs: 3,
    });
    log.append({
      type: 'llm_request',
      purpose: 'executor',
      stepId: 's1',
      requestedModel: 'm',
      usedModel: 'm',
      attempts: [{ ok: false, status: 429 }, { ok: true }],
      ok: true,
      durationMs: 3,
    });
    log.append({ type: 'llm_request', purpose: 'tool-call-repair', stepId: 's1', requestedModel: 'm', attempts: [], ok: false, error: 'boom', durationMs: 3 });
    assert.deepEqual(
      log.state.steps.get('s1')!.audits.map((a) => [a.kind, a.purpose, a.usedModel]),
      [
        ['llm_failover', 'executor', 'backup'],
        ['llm_retry', 'executor', 'm'],
        ['llm_error', 'tool-call-repair', undefined],
      ],
    );
  });
});

describe('reducer: run notices', () => {
  it('keeps warn and error log events, in order, for the panel; info and debug are not notices', () => {
    const log = new EventLog({ now: () => 5 });
    log.append({ type: 'log', level: 'info', message: 'planning' });
    log.append({ type: 'log', level: 'warn', message: 'model m not found at http://x/v1 — using backup' });
    log.append({ type: 'log', level: 'debug', message: 'detail' });
    log.append({ type: 'log', level: 'error', message: 'server s failed to start', stepId: 's1' });
    assert.deepEqual(log.state.notices, [
      { level: 'warn', message: 'model m not found at http://x/v1 — using backup', stepId: undefined, seq: 1 },
      { level: 'error', message: 'server s failed to start', stepId: 's1', seq: 3 },
    ]);
  });
});
