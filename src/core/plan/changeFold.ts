import type { EventOf } from './events';
import type { PlanState, StepState } from './planTypes';

// How the reducer folds file changes and reverts into the plan (docs/design.md, “Checkpoints and revert”): each step
// keeps the changes its calls made, in order, and each change says whether a revert has undone
// it; an undo of a revert clears what that revert marked. Pure: also runs in the webview.

function stepOf(state: PlanState, stepId: string): StepState | undefined {
  return state.steps.get(stepId) ?? state.replacedSteps.get(stepId);
}

export function foldFilesChanged(state: PlanState, event: EventOf<'files_changed'>): void {
  const step = stepOf(state, event.stepId);
  if (!step) return;
  const changes = (step.changes ??= []);
  for (const change of event.changes) {
    changes.push({ ...change, callId: event.callId, seq: event.seq });
    if (!step.files.includes(change.path)) step.files.push(change.path);
  }
}

export function foldFilesReverted(state: PlanState, event: EventOf<'files_reverted'>): void {
  if (event.undoes !== undefined) {
    for (const step of [...state.steps.values(), ...state.replacedSteps.values()]) {
      for (const change of step.changes ?? []) if (change.revertedBy?.seq === event.undoes) delete change.revertedBy;
    }
    return;
  }
  const settled = new Set(event.files.map((file) => file.path));
  for (const stepId of event.stepIds) {
    for (const change of stepOf(state, stepId)?.changes ?? []) {
      if (!change.revertedBy && settled.has(change.path)) change.revertedBy = { seq: event.seq, reason: event.reason };
    }
  }
}
