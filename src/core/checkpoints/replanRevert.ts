import type { EventLog } from '../plan/eventLog';
import type { ProtectedPathRules } from '../files/protectedPaths';
import type { CheckpointRecorder } from './checkpointRecorder';
import { createRestoreGuard } from './restoreGuard';
import { applyRevert } from './revertApply';
import { planRevert } from './revertPlan';

// Before a redesigned subgraph starts, the files that the failed step and the replaced steps
// changed are put back (cortex.replan.revertFailedChanges, docs/design.md, “Checkpoints and revert”), so the new steps
// start from a clean state instead of a half-done attempt. The usual conflict rules hold: a file
// changed since by someone else, or by a step outside the subgraph, is left alone and listed, and
// so is a protected path (nobody is asked in the middle of a run: it stays as the steps left it).

export interface ReplanRevertInput {
  log: EventLog;
  recorder: CheckpointRecorder;
  workspaceRoot: string;
  maxFileBytes: number;
  /** cortex.policy.protectedPaths. */
  protectedPaths: ProtectedPathRules;
  /** The failed step and the steps replaced with it. */
  stepIds: readonly string[];
  /** Recorded in files_reverted: a replan (default) or a streamed plan found invalid. */
  reason?: 'replan' | 'plan_discarded';
}

/** Reverts the subgraph's changes and records `files_reverted` (reason replan); never throws. */
export async function revertForReplan(input: ReplanRevertInput): Promise<void> {
  const { log, recorder } = input;
  try {
    await recorder.settle();
    const targets = planRevert(log.state, input.stepIds);
    if (targets.length === 0) return;
    const outcome = await applyRevert(targets, {
      workspaceRoot: input.workspaceRoot,
      store: recorder.store,
      maxFileBytes: input.maxFileBytes,
      guard: createRestoreGuard({ protectedPaths: input.protectedPaths, runFiles: recorder.runFiles }),
    });
    recorder.noteReverted(outcome.files);
    log.append({ type: 'files_reverted', reason: input.reason ?? 'replan', stepIds: [...input.stepIds], files: outcome.files, conflicts: outcome.conflicts });
  } catch (error) {
    log.append({
      type: 'log',
      level: 'warn',
      message: `Checkpoints: the changes of ${input.stepIds.join(', ')} could not be reverted (${input.reason ?? 'replan'}): ${(error as Error).message}`,
    });
  }
}
