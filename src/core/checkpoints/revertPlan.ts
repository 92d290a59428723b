import type { RunEvent } from '../plan/events';
import { PlanGraph } from '../plan/planGraph';
import type { PlanState, StepState } from '../plan/planTypes';
import type { StepFileChange } from '../plan/changeSchema';

// What a revert would do, decided from the folded plan alone (docs/design.md, “Checkpoints and revert”). For each path
// the selected steps changed (changes not already reverted): put back the content it had before
// the first of those changes, provided that
// - nothing else changed it since: the file on disk must still hold the run's last content there
//   (checked when applying);
// - no step outside the selection changed it after them (it built on them);
// - the content before is known and was saved (else the file is "not restorable").

export interface StepChange {
  stepId: string;
  change: StepFileChange;
}

/** A path's state on disk as a revert sees it. */
export type DiskState = { kind: 'absent' } | { kind: 'folder' } | { kind: 'file'; hash: string };

export interface RevertTarget {
  path: string;
  /** What to put back. */
  target: DiskState;
  /** What the run last left there; undefined when that is unknown. */
  expected: DiskState | undefined;
  /** Why the state before cannot be put back, when it cannot. */
  notRestorable?: string;
  /** Steps outside the selection that changed the path after the selected ones. */
  laterSteps: string[];
}

const ABSENT: DiskState = { kind: 'absent' };
const FOLDER: DiskState = { kind: 'folder' };

function allSteps(state: PlanState): StepState[] {
  return [...state.stepOrder.map((id) => state.steps.get(id)!), ...state.replacedSteps.values()];
}

/** Every change of the run not undone by a revert, in the order they were recorded. */
export function activeChanges(state: PlanState): StepChange[] {
  const found: StepChange[] = [];
  for (const step of allSteps(state)) for (const change of step.changes ?? []) if (!change.revertedBy) found.push({ stepId: step.id, change });
  return found.sort((a, b) => a.change.seq - b.change.seq);
}

/**
 * The steps a "revert step" covers: the step and, for a live step, every step downstream of it
 * (they built on it). Unknown ids are an error naming them.
 */
export function stepsToRevert(state: PlanState, stepIds: readonly string[], withDownstream = true): string[] {
  const unknown = stepIds.filter((id) => !state.steps.has(id) && !state.replacedSteps.has(id));
  if (unknown.length > 0)
    throw new Error(
      `no step ${unknown.join(', ')} in this run (steps: ${
        allSteps(state)
          .map((s) => s.id)
          .join(', ') || 'none'
      })`,
    );
  const selected = new Set(stepIds);
  if (withDownstream) {
    const graph = PlanGraph.forState(state);
    for (const id of stepIds) if (graph.has(id)) for (const downstream of graph.downstream(id)) selected.add(downstream);
  }
  return allSteps(state)
    .map((step) => step.id)
    .filter((id) => selected.has(id));
}

/** Every step of the run, live and replaced. */
export function allStepIds(state: PlanState): string[] {
  return allSteps(state).map((step) => step.id);
}

/** The revert of `stepIds`' changes, one target per path (folders after files, deepest first). */
export function planRevert(state: PlanState, stepIds: readonly string[]): RevertTarget[] {
  const selected = new Set(stepIds);
  const byPath = new Map<string, StepChange[]>();
  for (const item of activeChanges(state)) {
    const list = byPath.get(item.change.path);
    if (list) list.push(item);
    else byPath.set(item.change.path, [item]);
  }
  const targets: RevertTarget[] = [];
  for (const [path, history] of byPath) {
    const first = history.findIndex((item) => selected.has(item.stepId));
    if (first === -1) continue;
    const { change } = history[first];
    const last = history[history.length - 1].change;
    const laterSteps = [
      ...new Set(
        history
          .slice(first + 1)
          .filter((item) => !selected.has(item.stepId))
          .map((item) => item.stepId),
      ),
    ];
    targets.push({ path, target: stateBefore(change), expected: stateAfter(last), notRestorable: restorability(change), laterSteps });
  }
  return orderTargets(targets);
}

/**
 * Folders to bring back first (parents before children), then files, then folders to remove
 * (children before parents, so each is empty by then).
 */
function orderTargets(targets: RevertTarget[]): RevertTarget[] {
  const group = (t: RevertTarget) => (t.target.kind === 'folder' ? 0 : t.expected?.kind === 'folder' ? 2 : 1);
  const depth = (path: string) => path.split('/').length;
  return targets.sort(
    (a, b) =>
      group(a) - group(b) ||
      (group(a) === 0 ? depth(a.path) - depth(b.path) : group(a) === 2 ? depth(b.path) - depth(a.path) : 0) ||
      (a.path < b.path ? -1 : a.path > b.path ? 1 : 0),
  );
}

/** The targets that undo a revert: each path it settled goes back to what the revert replaced. */
export function planUndo(revert: Extract<RunEvent, { type: 'files_reverted' }>): RevertTarget[] {
  const state = (hash: string | null): DiskState => (hash === null ? ABSENT : { kind: 'file', hash });
  const targets: RevertTarget[] = [];
  for (const file of revert.files) {
    if (file.folder === 'created') targets.push({ path: file.path, target: ABSENT, expected: FOLDER, laterSteps: [] });
    else if (file.folder === 'removed') targets.push({ path: file.path, target: FOLDER, expected: ABSENT, laterSteps: [] });
    else if (file.folder === undefined && file.from !== file.to)
      targets.push({ path: file.path, target: state(file.from), expected: state(file.to), laterSteps: [] });
  }
  return orderTargets(targets);
}

/** What was there before a change. */
function stateBefore(change: StepFileChange): DiskState {
  if (change.kind === 'created') return ABSENT;
  if (change.directory) return FOLDER;
  return change.before === null ? ABSENT : { kind: 'file', hash: change.before };
}

/** What a change left on disk; undefined when unknown. */
function stateAfter(change: StepFileChange): DiskState | undefined {
  if (change.kind === 'deleted') return ABSENT;
  if (change.directory) return FOLDER;
  return change.after === null ? undefined : { kind: 'file', hash: change.after };
}

function restorability(change: StepFileChange): string | undefined {
  if (change.kind === 'created' || change.directory) return undefined;
  if (!change.restorable || change.before === null) return change.note ?? 'its content before the change was not saved';
  return undefined;
}

/** The files_reverted events of a list of events that are not undone and not undos themselves, newest last. */
export function undoableReverts(events: readonly RunEvent[]): Array<Extract<RunEvent, { type: 'files_reverted' }>> {
  const reverts = events.filter((event): event is Extract<RunEvent, { type: 'files_reverted' }> => event.type === 'files_reverted');
  const undone = new Set(reverts.map((event) => event.undoes).filter((seq): seq is number => seq !== undefined));
  return reverts.filter((event) => event.undoes === undefined && !undone.has(event.seq));
}
