import type { PlanSnapshot, StepSnapshot } from './events';
import type { PlanState, StepState } from './planTypes';

function stepSnapshot(step: StepState): StepSnapshot {
  return structuredClone(step);
}

/** The plain-JSON snapshot written in `run_finished` and documented in the README. */
export function toSnapshot(state: PlanState): PlanSnapshot {
  return {
    runId: state.runId,
    task: state.task,
    title: state.title,
    status: state.status,
    steps: state.stepOrder.map((id) => stepSnapshot(state.steps.get(id)!)),
    replacedSteps: [...state.replacedSteps.values()].map(stepSnapshot),
    replans: structuredClone(state.replans),
    answer: state.answer,
    error: state.error,
    startedAt: state.startedAt,
    finishedAt: state.finishedAt,
    usage: { ...state.usage },
    ...(state.planApprovals ? { planApprovals: structuredClone(state.planApprovals) } : {}),
    ...(state.notices ? { notices: structuredClone(state.notices) } : {}),
    ...(state.instructions ? { instructions: structuredClone(state.instructions) } : {}),
    ...(state.retryOf ? { retryOf: { ...state.retryOf } } : {}),
  };
}
