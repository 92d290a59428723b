import type { RetryOf } from '../src/core/plan/events';
import type { PlanState, StepState } from '../src/core/plan/planTypes';
import { auditsOfKind } from '../src/core/plan/stepAudits';

// Whether a step gets **Retry step** as a new run (docs/design.md, “Retrying a step”): a failed or
// blocked step of the plan as a finished run left it. A run still going has its own Retry for a
// denied approval (stepView's `retry`); an interrupted one is resumed instead.

/** What Retry step does, for its hover text and the line beside it. */
export const RETRY_STEP_HINT = 'Runs this step and the steps after it again in a new run; completed steps are carried over, not run again.';

export function canRetryInNewRun(state: PlanState, step: StepState): boolean {
  if (state.status !== 'failed' && state.status !== 'cancelled') return false;
  return state.steps.get(step.id) === step && (step.status === 'failed' || step.status === 'blocked');
}

/** The header line of a run that retries a step: which step of which run. */
export function retryOfText(retryOf: RetryOf): string {
  return `Retry of step “${retryOf.description}” (${retryOf.stepId}) from run ${retryOf.runId}`;
}

/** For a step a retry carried over from its old run: where it completed; '' otherwise. */
export function carriedOverText(step: StepState): string {
  const carried = auditsOfKind(step.audits, 'carried_over')[0];
  return carried ? `from run ${carried.fromRunId}, where it ${carried.fromStatus}; not run again` : '';
}
