import type { EventLog } from '../plan/eventLog';
import type { StepState } from '../plan/planTypes';

// The one place where a resume deals with what the interrupted steps had already changed on disk
// (docs/design.md §23). Those steps run again from the beginning, so their partial work should
// be put back first.

export type PartialChanges = 'none' | 'reverted' | 'kept';

export interface InterruptedChangesInput {
  log: EventLog;
  traceFile: string;
  workspaceRoot: string;
  /** The steps that start again. */
  stepIds: readonly string[];
  /** Whether a tool only reads (its calls cannot have changed anything). */
  isReadOnlyTool: (name: string) => boolean;
}

/** Calls of the step that may have changed something: a writing tool that ran, or was running. */
function possiblyWritingCalls(step: StepState, isReadOnlyTool: (name: string) => boolean): string[] {
  return step.toolCalls.filter((call) => (call.status === 'success' || call.status === 'error' || call.status === 'pending') && call.isComplete && !isReadOnlyTool(call.name)).map((call) => `${call.id} (${call.name})`);
}

/**
 * Reverts the file changes of the steps that restart. No revert of recorded changes is wired in
 * yet: when a restarted step may have changed files, they are kept as they are, a warning names
 * the calls, and `run_resumed` records `partialChanges: 'kept'`.
 */
export function revertInterruptedChanges(input: InterruptedChangesInput): Promise<PartialChanges> {
  const { log } = input;
  const touched: string[] = [];
  for (const stepId of input.stepIds) {
    const step = log.state.steps.get(stepId);
    if (!step) continue;
    const calls = possiblyWritingCalls(step, input.isReadOnlyTool);
    if (calls.length > 0) touched.push(`${stepId}: ${calls.join(', ')}`);
  }
  if (touched.length === 0) return Promise.resolve('none');
  log.append({
    type: 'log',
    level: 'warn',
    message: `Resuming: the steps that start again may have changed files before the run stopped, and those partial changes remain in the workspace (${touched.join('; ')}). The steps run from the beginning on top of them.`,
    data: { partialChanges: 'kept', calls: touched },
  });
  return Promise.resolve('kept');
}
