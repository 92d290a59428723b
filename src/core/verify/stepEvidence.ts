import type { StepState, ToolCallRecord } from '../plan/planTypes';

// What a step's record can prove (docs/design.md, “The verifier and how a step ends”): the files
// it changed (its files_changed entries, and the successful calls of the file tools, which say
// exactly what they wrote even when no checkpoints are recorded), the commands it ran and the
// calls that succeeded. The verifier's own command runs are calls of the step too, marked in their
// audit, and never count as the step's own work.

/** The audit key that marks a call the verifier made to run a `command` check. */
export const VERIFIER_CALL_MARK = 'verifierCheck';

/** The file tools whose `path` argument is the file they change. */
const FILE_WRITERS = new Set(['write_file', 'edit_file', 'create_directory']);

export function isVerifierCall(call: ToolCallRecord): boolean {
  return call.audit?.[VERIFIER_CALL_MARK] !== undefined;
}

/** The calls the step's model made (not the verifier's). */
export function modelCalls(step: StepState): ToolCallRecord[] {
  return step.toolCalls.filter((call) => !isVerifierCall(call));
}

/** One file the step changed, with what proves it. */
export interface ChangeEvidence {
  path: string;
  callId: string;
  /** The seq of its files_changed event; absent when only the file tool's call proves it. */
  seq?: number;
}

/** A path as the record keeps it: '/'-separated, relative to the workspace, no leading './'. */
export function normalizePath(path: string, workspaceRoot: string): string {
  let p = path.trim().replace(/\\/g, '/');
  const root = workspaceRoot.replace(/\\/g, '/').replace(/\/+$/, '');
  if (root && (p === root || p.startsWith(`${root}/`))) p = p.slice(root.length + 1);
  while (p.startsWith('./')) p = p.slice(2);
  return p.replace(/\/+$/, '').replace(/\/{2,}/g, '/');
}

function pathArgument(call: ToolCallRecord): string | undefined {
  try {
    const args = JSON.parse(call.arguments) as { path?: unknown };
    return typeof args.path === 'string' ? args.path : undefined;
  } catch {
    return undefined;
  }
}

/** Every file the step changed, in order: recorded changes first, then the file tools' own word. */
export function changesOf(step: StepState, workspaceRoot: string): ChangeEvidence[] {
  const verifierCalls = new Set(step.toolCalls.filter(isVerifierCall).map((call) => call.id));
  const changes: ChangeEvidence[] = (step.changes ?? [])
    .filter((change) => !verifierCalls.has(change.callId))
    .map((change) => ({ path: normalizePath(change.path, workspaceRoot), callId: change.callId, seq: change.seq }));
  for (const call of modelCalls(step)) {
    if (call.status !== 'success' || !FILE_WRITERS.has(call.name)) continue;
    const path = pathArgument(call);
    if (path === undefined) continue;
    const normal = normalizePath(path, workspaceRoot);
    if (!changes.some((change) => change.path === normal && change.callId === call.id)) changes.push({ path: normal, callId: call.id });
  }
  return changes;
}

/**
 * The change that backs a claimed path: the same path, or one that ends with it as whole names
 * ("date.test.js" for "test/date.test.js"); undefined when the step changed no such file.
 */
export function changeOfClaimedPath(changes: readonly ChangeEvidence[], claimed: string, workspaceRoot: string): ChangeEvidence | undefined {
  const path = normalizePath(claimed, workspaceRoot);
  return changes.find((change) => change.path === path || change.path.endsWith(`/${path}`));
}

/** The step's model-made commands that ran to their end (whatever their exit code). */
export function commandsThatRan(step: StepState): ToolCallRecord[] {
  return modelCalls(step).filter((call) => call.name === 'run_command' && (call.status === 'success' || call.exitCode !== undefined));
}

/** The step's model-made commands that ran and exited 0. */
export function successfulCommands(step: StepState): ToolCallRecord[] {
  return modelCalls(step).filter((call) => call.name === 'run_command' && call.status === 'success');
}
