import { auditsOfKind } from './stepAudits';
import type { PlanState, StepState } from './planTypes';

// Drift as the panel and the CLI count it (docs/design.md, “Step scopes and plan approval”): the
// `drift` audits of a step, and the changes that went through although they were outside its scope.

/** The step's drift audits, in order. */
export function stepDrifts(step: Pick<StepState, 'audits'>) {
  return auditsOfKind(step.audits, 'drift');
}

/** Every drift of the run's steps, replaced ones included. */
export function runDriftCount(state: Pick<PlanState, 'steps' | 'replacedSteps'>): number {
  let count = 0;
  for (const step of [...state.steps.values(), ...state.replacedSteps.values()]) count += stepDrifts(step).length;
  return count;
}

/**
 * The step's recorded changes that were outside its scope and went through: made by a call that
 * drifted (a person approved it) or named by a command's drift.
 */
export function changesOutsideScope(step: Pick<StepState, 'audits' | 'changes'>): Set<string> {
  const drifts = stepDrifts(step);
  const calls = new Set(drifts.filter((drift) => !drift.paths).map((drift) => drift.callId));
  const paths = new Set(drifts.flatMap((drift) => drift.paths ?? []));
  const outside = new Set<string>();
  for (const change of step.changes ?? []) if (calls.has(change.callId) || paths.has(change.path)) outside.add(change.path);
  return outside;
}
