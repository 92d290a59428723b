import type { EventOf } from './events';
import type { PlanState, StepState } from './planTypes';

// How `run_resumed` changes the plan (docs/design.md, “Resuming a run”). The run is running again, and each step
// that was running when it stopped goes back to not_started so it runs again from the beginning:
// its earlier attempt (calls, output, verdict) leaves the live step, so the verifier judges only
// the new attempt and the new calls cannot clash with the old ids. The earlier attempt stays
// readable in the step's audits; usage, notes and file changes are kept.

/** The audit kind that keeps a restarted step's earlier attempt. */
export const RESTARTED_AUDIT = 'restarted_on_resume';

function earlierAttempt(step: StepState): Record<string, unknown> {
  const attempt: Record<string, unknown> = { status: step.status, toolCalls: step.toolCalls };
  if (step.endReason !== undefined) attempt.endReason = step.endReason;
  if (step.startedAt !== undefined) attempt.startedAt = step.startedAt;
  if (step.output !== undefined) attempt.output = step.output;
  if (step.verdict !== undefined) attempt.verdict = step.verdict;
  return attempt;
}

export function foldRunResumed(state: PlanState, event: EventOf<'run_resumed'>): void {
  state.status = 'running';
  state.answer = undefined;
  state.error = undefined;
  state.finishedAt = undefined;
  for (const stepId of event.restartedStepIds) {
    const step = state.steps.get(stepId);
    if (!step) continue;
    step.audits.push({ kind: RESTARTED_AUDIT, seq: event.seq, fromSeq: event.fromSeq, earlierAttempt: earlierAttempt(step) });
    step.status = 'not_started';
    step.toolCalls = [];
    for (const key of ['output', 'verdict', 'endReason', 'blockedBy', 'startedAt', 'finishedAt'] as const) delete step[key];
  }
  // Nodes change wholesale (their calls are gone): views and indexes rebuild as for a new structure.
  if (event.restartedStepIds.length > 0) state.structureVersion++;
}
