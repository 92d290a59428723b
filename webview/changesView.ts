import { changesOutsideScope, stepDrifts } from '../src/core/plan/stepDrift';
import { summarizeChanges, type FileSummary } from '../src/core/checkpoints/changeSummary';
import type { PlanState, StepState } from '../src/core/plan/planTypes';
import type { WebviewToHost } from '../src/protocol/messages';
import { badge, button, el, pre } from './dom';
import type { PlanStore } from './store';

// A step's file changes in its details (docs/design.md, “Checkpoints and revert”): each changed file with its added and
// removed lines (a click opens VS Code's diff editor), what could not be saved, what a revert
// undid, and the buttons "Review changes" and "Revert step". Also the messages those buttons post
// and the approval card's diff. The host does the work and asks before it reverts anything.

export interface ChangesHandlers {
  open(stepId: string | undefined, path: string): void;
  review(stepId: string | undefined): void;
  revert(stepId: string | undefined): void;
}

const KIND_LABEL: Record<FileSummary['kind'], string> = { created: 'new', modified: 'modified', deleted: 'deleted' };

/** "+3 −1", "binary", or nothing when the counts are not known. */
export function lineCountText(summary: FileSummary): string {
  if (summary.binary) return 'binary';
  if (summary.added === undefined || summary.removed === undefined) return '';
  return `+${summary.added} -${summary.removed}`;
}

/** Whether a revert can still do something here: some change not undone, and the run over (not running, not interrupted). */
export function canRevert(store: PlanStore, summaries: readonly FileSummary[]): boolean {
  return store.state.status !== 'running' && summaries.some((s) => !s.reverted);
}

/** The changes shown for a step (all of them; reverted ones marked). */
export function stepChanges(state: PlanState, step: StepState): FileSummary[] {
  return (step.changes?.length ?? 0) > 0 ? summarizeChanges(state, step.id) : [];
}

/** The run's changes still in effect (for the header's buttons). */
export function runHasChanges(state: PlanState): { any: boolean; active: boolean } {
  let any = false;
  for (const step of [...state.steps.values(), ...state.replacedSteps.values()]) {
    for (const change of step.changes ?? []) {
      any = true;
      if (!change.revertedBy) return { any, active: true };
    }
  }
  return { any, active: false };
}

/** Changes whenever anything the section shows changes. */
export function changesSignature(store: PlanStore, step: StepState): string {
  const changes = step.changes ?? [];
  return `${changes.length}|${changes.filter((c) => c.revertedBy).length}|${store.live}|${store.state.status}|${stepDrifts(step).length}`;
}

/** Builds the section into `section` (nothing when the step changed no file). */
export function renderStepChanges(section: HTMLElement, store: PlanStore, step: StepState, handlers: ChangesHandlers): void {
  const summaries = stepChanges(store.state, step);
  if (summaries.length === 0) return;
  const files = summaries.filter((s) => !s.directory);
  const head = el('h3', 'details-label', 'Changes ');
  head.append(badge(String(files.length)));
  section.append(head);
  const replanned = summaries.filter((s) => s.reverted === 'replan').map((s) => s.path);
  if (replanned.length > 0) section.append(el('p', 'changes-reverted', `Reverted before the redesign: ${replanned.join(', ')}`));
  const list = el('ul', 'change-list');
  // A change that went through although it was outside the step's approved scope (docs/design.md, “Step scopes and plan approval”).
  const outside = changesOutsideScope(step);
  for (const summary of summaries) {
    const row = changeRow(step.id, summary, handlers);
    if (outside.has(summary.path)) row.append(el('span', 'tag tag-drift', 'outside scope'));
    list.append(row);
  }
  section.append(list);
  const row = el('div', 'details-actions');
  if (files.length > 0)
    row.append(button('Review changes', 'btn btn-secondary', `Review the changes of step ${step.id} in a diff editor`, () => handlers.review(step.id)));
  if (canRevert(store, summaries))
    row.append(button('Revert step', 'btn btn-secondary', `Revert the changes of step ${step.id} and the steps after it`, () => handlers.revert(step.id)));
  if (row.childElementCount > 0) section.append(row);
}

function changeRow(stepId: string, summary: FileSummary, handlers: ChangesHandlers): HTMLElement {
  const li = el('li', `change change-${summary.kind}${summary.reverted ? ' change-reverted' : ''}`);
  li.append(el('span', `change-kind change-kind-${summary.kind}`, summary.directory ? `folder ${KIND_LABEL[summary.kind]}` : KIND_LABEL[summary.kind]));
  if (summary.directory) li.append(el('span', 'mono change-path', `${summary.path}/`));
  else {
    const open = button(summary.path, 'link mono change-path', `Open the diff of ${summary.path}`, () => handlers.open(stepId, summary.path));
    open.title = `Open the diff of ${summary.path} (step ${stepId})`;
    li.append(open);
  }
  const counts = lineCountText(summary);
  if (counts) li.append(el('span', 'change-lines', counts));
  if (summary.reverted) li.append(el('span', 'tag tag-replaced', `reverted (${summary.reverted})`));
  for (const note of summary.notes) li.append(el('span', 'change-note muted', note));
  return li;
}

/** The diff an approval of a write or edit shows (computed by the host when approval was asked). */
export function approvalDiff(diff: string | undefined): HTMLElement[] {
  if (!diff) return [];
  return [el('h4', 'details-sublabel', 'Change it would make'), pre(diff, 'pre code approval-diff')];
}

export function openChangeMessage(store: PlanStore, stepId: string | undefined, path: string): WebviewToHost | undefined {
  if (!store.runId) return undefined;
  return { type: 'changes/open', runId: store.runId, path, ...(stepId ? { stepId } : {}) };
}

export function reviewChangesMessage(store: PlanStore, stepId?: string): WebviewToHost | undefined {
  if (!store.runId) return undefined;
  return { type: 'changes/review', runId: store.runId, ...(stepId ? { stepId } : {}) };
}

export function revertChangesMessage(store: PlanStore, stepId?: string): WebviewToHost | undefined {
  if (!store.runId) return undefined;
  return { type: 'changes/revert', runId: store.runId, ...(stepId ? { stepId } : {}) };
}
