import { ContentStore, DEFAULT_MAX_OBJECT_BYTES } from '../checkpoints/contentStore';
import { createRestoreGuard } from '../checkpoints/restoreGuard';
import type { ProtectedPathRules } from '../files/protectedPaths';
import { applyRevert } from '../checkpoints/revertApply';
import { planRevert } from '../checkpoints/revertPlan';
import type { EventLog } from '../plan/eventLog';
import type { StepState } from '../plan/planTypes';

// The one place where a resume deals with what the interrupted steps had already changed on disk
// (docs/design.md, “Resuming a run”). Those steps run again from the beginning, so their partial work is put
// back first, from the run's checkpoints (docs/design.md, “Checkpoints and revert”), recorded as `files_reverted` with
// reason `resume`. What cannot be put back stays, and a warning says so.

export type PartialChanges = 'none' | 'reverted' | 'kept';

export interface InterruptedChangesInput {
  log: EventLog;
  workspaceRoot: string;
  /** The steps that start again. */
  stepIds: readonly string[];
  /** The run's checkpoint folder; without one nothing recorded can be put back. */
  checkpointsDir?: string;
  /** cortex.checkpoints.maxFileBytes. */
  maxFileBytes: number;
  /** cortex.policy.protectedPaths: such paths are put back only when confirmed. */
  protectedPaths: ProtectedPathRules;
  /** Protected paths the person confirmed (the CLI's --allow-protected). */
  confirmed?: readonly string[];
  /** The run's trace and lock: never written by the put-back (the checkpoint folder neither). */
  runFiles: readonly string[];
  /** Whether a tool only reads (its calls cannot have changed anything). */
  isReadOnlyTool: (name: string) => boolean;
}

/** Call results recorded without the call running. */
const NEVER_RAN = new Set(['invalid_arguments', 'policy_denied', 'approval_denied', 'duplicate', 'reused']);

/**
 * Calls of the step that may have changed files without a recorded change: a writing tool that
 * ran or was running (the process may have died between the write and its record).
 */
function unrecordedWrites(step: StepState, isReadOnlyTool: (name: string) => boolean): string[] {
  const recorded = new Set((step.changes ?? []).map((change) => change.callId));
  return step.toolCalls
    .filter(
      (call) =>
        (call.status === 'success' || call.status === 'error' || call.status === 'pending') &&
        !NEVER_RAN.has(call.reason ?? '') &&
        call.isComplete &&
        !isReadOnlyTool(call.name) &&
        !recorded.has(call.id),
    )
    .map((call) => `${call.id} (${call.name})`);
}

/** Puts back the recorded changes of the steps that restart; says what remains. */
export async function revertInterruptedChanges(input: InterruptedChangesInput): Promise<PartialChanges> {
  const { log, stepIds } = input;
  const remaining: string[] = [];
  let reverted = false;
  const targets = planRevert(log.state, stepIds);
  if (targets.length > 0 && !input.checkpointsDir) remaining.push(`${targets.length} recorded change(s), with no checkpoint folder to restore them from`);
  else if (targets.length > 0) {
    try {
      const outcome = await applyRevert(targets, {
        workspaceRoot: input.workspaceRoot,
        store: new ContentStore(input.checkpointsDir!, Math.max(DEFAULT_MAX_OBJECT_BYTES, input.maxFileBytes)),
        maxFileBytes: input.maxFileBytes,
        guard: createRestoreGuard({
          protectedPaths: input.protectedPaths,
          confirmed: input.confirmed,
          runFiles: [...input.runFiles, input.checkpointsDir!],
        }),
      });
      log.append({ type: 'files_reverted', reason: 'resume', stepIds: [...stepIds], files: outcome.files, conflicts: outcome.conflicts });
      reverted = outcome.files.length > 0;
      for (const conflict of outcome.conflicts) remaining.push(`${conflict.path}: ${conflict.detail}`);
    } catch (error) {
      remaining.push(`the recorded changes could not be reverted (${(error as Error).message})`);
    }
  }
  for (const stepId of stepIds) {
    const step = log.state.steps.get(stepId);
    const calls = step ? unrecordedWrites(step, input.isReadOnlyTool) : [];
    if (calls.length > 0) remaining.push(`${stepId}: ${calls.join(', ')} may have changed files that were not recorded`);
  }
  if (remaining.length === 0) return reverted ? 'reverted' : 'none';
  log.append({
    type: 'log',
    level: 'warn',
    message: `Resuming: partial changes of the steps that start again remain in the workspace (${remaining.join('; ')}). The steps run from the beginning on top of them.`,
    data: { partialChanges: 'kept', remaining },
  });
  return 'kept';
}
