import assert from 'node:assert/strict';
import type { RunResult } from '../../../src/core/agent/agentRun';
import type { RunEvent } from '../../../src/core/plan/events';
import { EXIT, exitCodeFor } from '../../../src/cli/exitCode';

const snapshot = (steps: number) => ({ steps: Array.from({ length: steps }, () => ({})) }) as unknown as RunResult['snapshot'];
const result = (status: RunResult['status'], steps: number): RunResult => ({ status, snapshot: snapshot(steps) });
const plannerFailure = (errorKind?: string): RunEvent => ({
  type: 'llm_request',
  seq: 0,
  time: 0,
  purpose: 'planner',
  requestedModel: 'm',
  attempts: errorKind ? [{ model: 'm', ok: false, durationMs: 1, errorKind }] : [],
  ok: false,
  error: 'x',
  durationMs: 1,
});

describe('CLI exit codes', () => {
  it('0 when every step completed, 1 for failed steps or a cancel', () => {
    assert.equal(exitCodeFor(result('completed', 2), []), EXIT.completed);
    assert.equal(exitCodeFor(result('failed', 2), []), EXIT.incomplete);
    assert.equal(exitCodeFor(result('cancelled', 0), [plannerFailure('cancelled')]), EXIT.incomplete);
  });

  it('3 when the planner request failed for good: unreachable, key rejected, model missing', () => {
    for (const kind of ['unreachable', 'auth', 'not_found']) assert.equal(exitCodeFor(result('failed', 0), [plannerFailure(kind)]), EXIT.llmSetup, kind);
  });

  it('1 when the planner failure could pass (server error, bad reply) or its kind is unknown', () => {
    for (const kind of ['server', 'rate_limit', 'bad_response', 'bad_request', undefined])
      assert.equal(exitCodeFor(result('failed', 0), [plannerFailure(kind)]), EXIT.incomplete, String(kind));
  });
});
