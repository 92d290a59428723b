import { stat } from 'node:fs/promises';
import { appendRegular } from '../files/regularRead';
import type { NewRunEvent, RunEvent } from '../plan/events';
import type { PlanState } from '../plan/planTypes';
import { foldEvents } from '../plan/reducer';
import { checkRecordedWorkspace } from '../files/recordedWorkspace';
import { readTrace } from '../trace/traceReader';
import type { RevertReason } from '../plan/changeSchema';
import { ContentStore } from './contentStore';
import { DEFAULT_PROTECTED_PATHS, type ProtectedPathRules } from '../files/protectedPaths';
import { createRestoreGuard } from './restoreGuard';
import { applyRevert, type RevertOutcome } from './revertApply';
import { allStepIds, planRevert, planUndo, stepsToRevert, undoableReverts } from './revertPlan';

// Reviewing a recorded run after the fact (the CLI's diff and revert, the editor's buttons): the
// trace folded into its plan, the run's checkpoint folder, and reverts that are appended to the
// trace as `files_reverted` events after the run's own lines, so replaying the trace shows them.

/** Default checkpoint folder of a run: next to its trace, `<trace>.checkpoints`. */
export function defaultCheckpointsDir(traceFile: string): string {
  return `${traceFile}.checkpoints`;
}

/** The default of cortex.checkpoints.maxFileBytes (10 MB). */
export const DEFAULT_MAX_CHECKPOINT_FILE_BYTES = 10 * 1024 * 1024;

export class ReviewError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ReviewError';
  }
}

export interface RunReview {
  traceFile: string;
  events: RunEvent[];
  state: PlanState;
  workspace: string;
  store: ContentStore;
  warnings: string[];
}

/**
 * Reads a trace and opens its checkpoint folder for the workspace the person gave; a trace
 * recorded for another folder, or a missing checkpoint folder, is a clear error.
 */
export async function openReview(traceFile: string, options: { checkpointsDir?: string; workspace: string }): Promise<RunReview> {
  const { events, warnings } = await readTrace(traceFile);
  const started = events.find((event) => event.type === 'run_started');
  if (started?.type !== 'run_started') throw new ReviewError(`the trace ${traceFile} does not say which workspace the run worked in (no run_started event)`);
  const { workspace } = options;
  await checkRecordedWorkspace(started.workspace, workspace, 'review or revert its changes');
  const dir = options.checkpointsDir ?? defaultCheckpointsDir(traceFile);
  const hasChanges = events.some((event) => event.type === 'files_changed');
  if (hasChanges && !(await stat(dir).catch(() => undefined))?.isDirectory())
    throw new ReviewError(`the run's checkpoint folder ${dir} does not exist (give --checkpoints DIR if it was recorded elsewhere)`);
  return { traceFile, events, state: foldEvents(events), workspace, store: new ContentStore(dir), warnings };
}

export interface RevertRequest {
  /** Steps to revert (each with its downstream); none: the whole run. */
  stepIds?: readonly string[];
  force?: boolean;
  dryRun?: boolean;
  reason?: RevertReason;
  maxFileBytes?: number;
  /** cortex.policy.protectedPaths (default: the built-in lists). */
  protectedPaths?: ProtectedPathRules;
  /** Protected paths the person confirmed for this revert (workspace-relative). */
  confirmed?: Iterable<string>;
}

export interface RevertResult {
  stepIds: string[];
  outcome: RevertOutcome;
  /** The event to record (not yet appended). */
  event: NewRunEvent;
}

type GuardRequest = Pick<RevertRequest, 'force' | 'dryRun' | 'maxFileBytes' | 'protectedPaths' | 'confirmed'>;

function revertOptions(review: Pick<RunReview, 'workspace' | 'store' | 'traceFile'>, request: GuardRequest): Parameters<typeof applyRevert>[1] {
  return {
    workspaceRoot: review.workspace,
    store: review.store,
    force: request.force,
    dryRun: request.dryRun,
    maxFileBytes: request.maxFileBytes ?? DEFAULT_MAX_CHECKPOINT_FILE_BYTES,
    guard: createRestoreGuard({
      protectedPaths: request.protectedPaths ?? DEFAULT_PROTECTED_PATHS,
      confirmed: request.confirmed,
      // The trace, its lock (`<trace>.lock`, see resume/runLock.ts) and the checkpoint folder.
      runFiles: [review.traceFile, `${review.traceFile}.lock`, review.store.dir],
    }),
  };
}

/** Reverts steps (with what is downstream of them) or the whole run, on disk unless a dry run. */
export async function revertRecorded(review: Pick<RunReview, 'state' | 'workspace' | 'store' | 'traceFile'>, request: RevertRequest): Promise<RevertResult> {
  const stepIds = request.stepIds && request.stepIds.length > 0 ? stepsToRevert(review.state, request.stepIds) : allStepIds(review.state);
  const outcome = await applyRevert(planRevert(review.state, stepIds), revertOptions(review, request));
  return {
    stepIds,
    outcome,
    event: {
      type: 'files_reverted',
      reason: request.reason ?? 'user',
      stepIds,
      files: outcome.files,
      conflicts: outcome.conflicts,
      ...(request.force ? { forced: true } : {}),
    },
  };
}

/** Undoes the last revert that is not undone yet; undefined when there is none. */
export async function undoLastRevert(
  review: Pick<RunReview, 'events' | 'workspace' | 'store' | 'traceFile'>,
  request: GuardRequest = {},
): Promise<RevertResult | undefined> {
  const last = undoableReverts(review.events).at(-1);
  if (!last) return undefined;
  const outcome = await applyRevert(planUndo(last), revertOptions(review, request));
  return {
    stepIds: last.stepIds,
    outcome,
    event: {
      type: 'files_reverted',
      reason: 'undo',
      stepIds: last.stepIds,
      files: outcome.files,
      conflicts: outcome.conflicts,
      undoes: last.seq,
      ...(request.force ? { forced: true } : {}),
    },
  };
}

/** Appends `event` to a finished run's trace (seq after the last line) and returns it stamped. */
export async function appendToTrace(traceFile: string, events: readonly RunEvent[], event: NewRunEvent, now = Date.now()): Promise<RunEvent> {
  const stamped: RunEvent = { ...event, seq: (events.at(-1)?.seq ?? -1) + 1, time: now };
  await appendRegular(traceFile, `${JSON.stringify(stamped)}\n`, 'trace file');
  return stamped;
}
