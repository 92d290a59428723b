import type { NewRunEvent } from '../plan/events';
import { replanOutcomeEvents, type StepIdAllocator } from '../plan/planOperations';
import type { ReplanResult } from './replanPrompt';
import type { RunContext } from './runContext';

// What a replanner decision read whole does to the plan (docs/design.md, “The replanner”), shared
// by the redesign read whole and the streamed one whose steps were discarded.

/**
 * Puts back what the failed step and the steps replaced with it changed, so the redesigned
 * subgraph starts from a clean state (cortex.replan.revertFailedChanges, docs/design.md, “Checkpoints and revert”).
 */
export async function revertFailedSubgraph(context: RunContext, stepIds: readonly string[]): Promise<void> {
  if (context.config['cortex.replan.revertFailedChanges']) await context.features.checkpoints.revertSteps(stepIds);
}

/** The events of a checked decision (a redesign, or give_up), to append at once; throws PlanInvariantError when it cannot be applied. */
export function replanDecisionEvents(
  context: RunContext,
  failedStepId: string,
  result: ReplanResult,
  maxAttempts: number,
  ids: StepIdAllocator,
): NewRunEvent[] {
  return replanOutcomeEvents(context.log.state, {
    failedStepId,
    decision: {
      action: result.action,
      newSteps: result.new_steps,
      newExpects: result.new_expects,
      newScopes: result.new_scopes,
      newDependencies: result.new_dependencies,
      uses: result.uses,
      reason: result.reason,
    },
    maxAttempts,
    newId: () => ids.next(),
  });
}
