import type { PlanState, StepState } from '../plan/planTypes';
import type { StepFileChange } from '../plan/changeSchema';

// The net effect on each path of a step, or of the whole run: from the content before its first
// change to the content after its last. Shared by `cortex diff`, the editor's review and the
// panel (pure, no file access).

export interface FileSummary {
  path: string;
  /** Net effect; a file created and deleted again within the scope is left out. */
  kind: 'created' | 'modified' | 'deleted';
  /** Content before the first change (null: absent, or unknown when `beforeKnown` is false). */
  before: string | null;
  after: string | null;
  beforeKnown: boolean;
  afterKnown: boolean;
  directory: boolean;
  binary: boolean;
  /** Lines added and removed, summed over the changes (when every change had counts). */
  added?: number;
  removed?: number;
  /** The steps whose changes these are, in order. */
  stepIds: string[];
  /** Set when every change here was undone by a revert: its reason. */
  reverted?: string;
  notes: string[];
}

interface Item {
  stepId: string;
  change: StepFileChange;
}

function stepsOf(state: PlanState): StepState[] {
  return [...state.stepOrder.map((id) => state.steps.get(id)!), ...state.replacedSteps.values()];
}

/**
 * Per path, in path order: the step's changes (all of them, reverted ones marked), or with no
 * step the run's changes that are still in effect.
 */
export function summarizeChanges(state: PlanState, stepId?: string): FileSummary[] {
  const items: Item[] = [];
  for (const step of stepsOf(state)) {
    if (stepId !== undefined && step.id !== stepId) continue;
    for (const change of step.changes ?? []) if (stepId !== undefined || !change.revertedBy) items.push({ stepId: step.id, change });
  }
  items.sort((a, b) => a.change.seq - b.change.seq);
  const byPath = new Map<string, Item[]>();
  for (const item of items) {
    const list = byPath.get(item.change.path);
    if (list) list.push(item);
    else byPath.set(item.change.path, [item]);
  }
  const summaries: FileSummary[] = [];
  for (const [path, list] of byPath) {
    const summary = summarize(path, list);
    if (summary) summaries.push(summary);
  }
  return summaries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

function summarize(path: string, list: Item[]): FileSummary | undefined {
  const first = list[0].change;
  const last = list[list.length - 1].change;
  const existedBefore = first.kind !== 'created';
  const existsAfter = last.kind !== 'deleted';
  if (!existedBefore && !existsAfter) return undefined;
  const kind = !existedBefore ? 'created' : !existsAfter ? 'deleted' : 'modified';
  const counted = list.every((item) => item.change.added !== undefined && item.change.removed !== undefined);
  const reverted = list.every((item) => item.change.revertedBy) ? list[list.length - 1].change.revertedBy!.reason : undefined;
  return {
    path,
    kind,
    before: existedBefore ? first.before : null,
    after: existsAfter ? last.after : null,
    beforeKnown: !existedBefore || first.before !== null || first.directory === true,
    afterKnown: !existsAfter || last.after !== null || last.directory === true,
    directory: first.directory === true,
    binary: list.some((item) => item.change.binary),
    ...(counted ? { added: list.reduce((n, item) => n + item.change.added!, 0), removed: list.reduce((n, item) => n + item.change.removed!, 0) } : {}),
    stepIds: [...new Set(list.map((item) => item.stepId))],
    ...(reverted ? { reverted } : {}),
    notes: [...new Set(list.map((item) => item.change.note).filter((note): note is string => note !== undefined))],
  };
}
