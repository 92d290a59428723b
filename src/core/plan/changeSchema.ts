import { z } from 'zod';

// The shapes of recorded file changes and reverts (docs/design.md, “Checkpoints and revert”), shared by the trace
// events (plan/events.ts), the reducer and the checkpoint code. Hashes are the sha256 of the
// content, as stored in the run's content store.

const Hash = z.string().regex(/^[0-9a-f]{64}$/);

/** One file (or folder) a call changed. */
export const FileChangeSchema = z.object({
  /** Relative to the workspace, '/'-separated. */
  path: z.string().min(1),
  kind: z.enum(['created', 'modified', 'deleted']),
  /** Content before: null when the file did not exist (created), or when it is unknown (see note). */
  before: Hash.nullable(),
  /** Content after: null when the file is gone (deleted), or when it is unknown (see note). */
  after: Hash.nullable(),
  /** Whether a revert can put the content before back. */
  restorable: z.boolean(),
  /** Why it is not restorable, or anything else a reviewer should know, in words. */
  note: z.string().optional(),
  /** A folder (created by create_directory or as a parent of a written file). */
  directory: z.boolean().optional(),
  /** Line counts of the change, for text files. */
  added: z.number().int().nonnegative().optional(),
  removed: z.number().int().nonnegative().optional(),
  binary: z.boolean().optional(),
});
export type FileChange = z.infer<typeof FileChangeSchema>;

/** A change as a step keeps it: which call made it, when, and whether a revert undid it. */
export const StepFileChangeSchema = FileChangeSchema.extend({
  callId: z.string(),
  seq: z.number().int().nonnegative(),
  /** Set while a revert (files_reverted at this seq) has undone this change. */
  revertedBy: z.object({ seq: z.number().int().nonnegative(), reason: z.string() }).optional(),
});
export type StepFileChange = z.infer<typeof StepFileChangeSchema>;

/**
 * One path a revert settled. For a file, `from` is the content it replaced (kept in the store, so
 * the revert can be undone) and `to` what it holds now; null is "absent"; equal when it was
 * already as it should be. For a folder, `folder` says what the revert did to it.
 */
export const RevertedFileSchema = z.object({
  path: z.string().min(1),
  from: Hash.nullable(),
  to: Hash.nullable(),
  folder: z.enum(['created', 'removed', 'unchanged']).optional(),
});
export type RevertedFile = z.infer<typeof RevertedFileSchema>;

/** `protected`: needs the person's confirmation; `refused`: never restored (`.git`, the run's own files). */
export const RevertConflictReasonSchema = z.enum(['changed_since', 'changed_by_other_step', 'not_restorable', 'failed', 'protected', 'refused']);

/** A file a revert left alone, and why. */
export const RevertConflictSchema = z.object({
  path: z.string().min(1),
  reason: RevertConflictReasonSchema,
  detail: z.string(),
});
export type RevertConflict = z.infer<typeof RevertConflictSchema>;

export const RevertReasonSchema = z.enum(['user', 'replan', 'undo', 'resume', 'plan_discarded']);
export type RevertReason = z.infer<typeof RevertReasonSchema>;

/** The fields of a files_changed event (besides seq, time and type). */
export const FilesChangedFields = {
  stepId: z.string(),
  callId: z.string(),
  changes: z.array(FileChangeSchema),
};

/** The fields of a files_reverted event (besides seq, time and type). */
export const FilesRevertedFields = {
  reason: RevertReasonSchema,
  /** The steps whose changes were reverted (for an undo: those of the revert it undoes). */
  stepIds: z.array(z.string()),
  files: z.array(RevertedFileSchema),
  conflicts: z.array(RevertConflictSchema),
  /** Conflicting files were overwritten on request. */
  forced: z.boolean().optional(),
  /** For an undo: the seq of the files_reverted event it undoes. */
  undoes: z.number().int().nonnegative().optional(),
};
