import assert from 'node:assert/strict';
import { EventLog } from '../../../src/core/plan/eventLog';
import { llmRequest, logWithStep } from '../../support/runEventFixtures';

describe('reducer: LLM requests', () => {
  it('adds up token usage across requests', () => {
    const log = logWithStep();
    log.append(llmRequest({ purpose: 'planner', usage: { promptTokens: 10, completionTokens: 2 } }));
    log.append(llmRequest({ purpose: 'executor', stepId: 's1', usage: { promptTokens: 5, completionTokens: 1 } }));
    assert.deepEqual(log.state.usage, { promptTokens: 15, completionTokens: 3 });
  });

  it('records failovers, retries and errors of a step in its audits, and nothing for a plain success', () => {
    const log = logWithStep();
    log.append(llmRequest({ purpose: 'executor', stepId: 's1', attempts: [{ model: 'm', ok: true }] }));
    assert.equal(log.state.steps.get('s1')!.audits.length, 0);
    log.append(
      llmRequest({
        purpose: 'executor',
        stepId: 's1',
        usedModel: 'backup',
        attempts: [
          { model: 'm', ok: false, status: 404 },
          { model: 'backup', ok: true },
        ],
        durationMs: 3,
      }),
    );
    log.append(llmRequest({ purpose: 'executor', stepId: 's1', attempts: [{ ok: false, status: 429 }, { ok: true }], durationMs: 3 }));
    log.append(llmRequest({ purpose: 'tool-call-repair', stepId: 's1', usedModel: undefined, ok: false, error: 'boom', durationMs: 3 }));
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

describe('reducer: project instructions', () => {
  it('lists the instructions files the run and each step used, from their log records, keeping only well-formed entries', () => {
    const log = new EventLog({ now: () => 5 });
    log.append({
      type: 'log',
      level: 'info',
      message: 'Project instructions from AGENTS.md',
      data: { kind: 'project_instructions', files: [{ path: 'AGENTS.md', bytes: 16 }] },
    });
    log.append({
      type: 'log',
      level: 'info',
      message: 'Step s2 also follows packages/api/AGENTS.md',
      stepId: 's2',
      data: { kind: 'project_instructions', stepId: 's2', files: [{ path: 'packages/api/AGENTS.md', bytes: 40 }, { path: 7 }, null] },
    });
    log.append({ type: 'log', level: 'info', message: 'other', data: { kind: 'something_else', files: [{ path: 'x', bytes: 1 }] } });
    log.append({ type: 'log', level: 'info', message: 'forged', data: { kind: 'project_instructions', files: 'AGENTS.md' } });
    assert.deepEqual(log.state.instructions, [
      { path: 'AGENTS.md', bytes: 16 },
      { path: 'packages/api/AGENTS.md', bytes: 40, stepId: 's2' },
    ]);
  });
});

describe('reducer: a streamed plan', () => {
  it('marks the plan partial until it is whole, and moves the steps of a discarded plan to history', () => {
    const log = new EventLog();
    log.append({ type: 'plan_created', title: 'T', partial: true });
    for (const [stepId, dependsOn] of [
      ['s1', []],
      ['s2', ['s1']],
      ['s3', []],
    ] as const)
      log.append({ type: 'step_added', stepId, description: stepId, dependsOn: [...dependsOn], lineage: stepId, replanAttempts: 0, origin: 'planner' });
    assert.equal(log.state.planPartial, true);
    const version = log.state.structureVersion;
    log.append({ type: 'plan_discarded', stepIds: ['s1', 's2', 'unknown'], reason: 'the streamed plan is invalid' });
    assert.deepEqual(log.state.stepOrder, ['s3']);
    assert.deepEqual([...log.state.replacedSteps.keys()], ['s1', 's2']);
    assert.equal(log.state.replacedSteps.get('s1')!.endReason, 'plan_discarded');
    assert.equal(log.state.structureVersion, version + 1);
    log.append({ type: 'plan_created', title: 'T' });
    assert.equal(log.state.planPartial, undefined);
  });
});
