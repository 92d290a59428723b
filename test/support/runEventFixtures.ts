import { EventLog } from '../../src/core/plan/eventLog';
import type { EventOf, PlanSnapshot } from '../../src/core/plan/events';

// Small run events and plans for unit tests: each fills in the fields a test is not about, so the
// test spells out only the ones it checks.

type NewLlmRequest = Omit<EventOf<'llm_request'>, 'seq' | 'time'>;

/** An event log holding one step `s1` that the planner added, for events that land on a step. */
export function logWithStep(description = 'd'): EventLog {
  const log = new EventLog({ now: () => 1 });
  log.append({ type: 'step_added', stepId: 's1', description, dependsOn: [], lineage: 's1', replanAttempts: 0, origin: 'planner' });
  return log;
}

/** A request to model `m` that succeeded in 1 ms with nothing to report; `fields` say what differs. */
export function llmRequest(fields: Pick<NewLlmRequest, 'purpose'> & Partial<NewLlmRequest>): NewLlmRequest {
  return { type: 'llm_request', requestedModel: 'm', usedModel: 'm', attempts: [], ok: true, durationMs: 1, ...fields };
}

/** The plan a `run_finished` event carries for a completed run with no steps and no tokens. */
export function emptyCompletedPlan(runId: string, task: string): PlanSnapshot {
  return { runId, task, title: '', status: 'completed', steps: [], replacedSteps: [], replans: [], usage: { promptTokens: 0, completionTokens: 0 } };
}
