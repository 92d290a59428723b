import { constants } from 'node:fs';
import { lstat, mkdir, open, readFile, realpath, rmdir, unlink } from 'node:fs/promises';
import path from 'node:path';
import { isInside, resolveInWorkspace } from '../tools/workspaceJail';
import type { RevertConflict, RevertedFile } from './changeSchema';
import { hashBytes, hashFileStreaming, type ContentStore } from './contentStore';
import type { DiskState, RevertTarget } from './revertPlan';

// Carries out a revert plan on disk (docs/design.md, “Checkpoints and revert”). Each path is checked first: a path
// someone changed since the run (its content is not the run's last), or that a step outside the
// selection changed afterwards, is a conflict and left alone unless forced; one whose earlier
// content was not saved can never be put back. What a revert overwrites is saved first, so the
// revert itself can be undone. Paths stay inside the workspace: a parent folder that now leads
// outside, or a path that became a symbolic link, is refused.

export interface RevertOptions {
  workspaceRoot: string;
  store: ContentStore;
  /** Overwrite conflicting paths (changed since, or changed by later steps). */
  force?: boolean;
  /** Only check and report; touch nothing. */
  dryRun?: boolean;
  /** Larger current contents are not saved before being overwritten (cortex.checkpoints.maxFileBytes). */
  maxFileBytes: number;
}

export interface RevertOutcome {
  files: RevertedFile[];
  conflicts: RevertConflict[];
}

type Current = DiskState | { kind: 'other'; what: string };

interface Located {
  real: string;
  current: Current;
  bytes?: Buffer;
}

function same(a: Current, b: DiskState): boolean {
  return a.kind === b.kind && (a.kind !== 'file' || a.hash === (b as { hash: string }).hash);
}

function describe(state: DiskState): string {
  return state.kind === 'absent' ? 'absent' : state.kind === 'folder' ? 'a folder' : `content ${state.hash.slice(0, 12)}`;
}

async function locate(realRoot: string, relative: string, options: RevertOptions): Promise<Located> {
  const parent = await resolveInWorkspace(realRoot, path.posix.dirname(relative) === '.' ? '.' : path.posix.dirname(relative));
  const real = path.join(parent, path.posix.basename(relative));
  let stats;
  try {
    stats = await lstat(real);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { real, current: { kind: 'absent' } };
    throw error;
  }
  if (stats.isDirectory()) return { real, current: { kind: 'folder' } };
  if (stats.isSymbolicLink()) return { real, current: { kind: 'other', what: 'a symbolic link' } };
  if (!stats.isFile()) return { real, current: { kind: 'other', what: 'not a regular file' } };
  if (stats.size > options.maxFileBytes) return { real, current: { kind: 'file', hash: (await hashFileStreaming(real)) ?? '' } };
  const bytes = await readFile(real);
  return { real, current: { kind: 'file', hash: hashBytes(bytes) }, bytes };
}

async function writeContent(real: string, bytes: Buffer, realRoot: string): Promise<void> {
  const parent = path.dirname(real);
  await mkdir(parent, { recursive: true });
  // The folders just made must still be inside the workspace (nothing raced a link in).
  const parentReal = await realpath(parent);
  if (!isInside(realRoot, parentReal)) throw new Error('its folder is outside the workspace');
  const handle = await open(real, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | (constants.O_NOFOLLOW ?? 0), 0o666);
  try {
    await handle.writeFile(bytes);
  } finally {
    await handle.close();
  }
}

/** Checks every target and, unless it is a dry run, puts back what can be put back. */
export async function applyRevert(targets: readonly RevertTarget[], options: RevertOptions): Promise<RevertOutcome> {
  const realRoot = await realpath(options.workspaceRoot);
  const outcome: RevertOutcome = { files: [], conflicts: [] };
  const conflict = (target: RevertTarget, reason: RevertConflict['reason'], detail: string) => outcome.conflicts.push({ path: target.path, reason, detail });
  for (const target of targets) {
    if (target.notRestorable) {
      conflict(target, 'not_restorable', target.notRestorable);
      continue;
    }
    let located: Located;
    try {
      located = await locate(realRoot, target.path, options);
    } catch (error) {
      conflict(target, 'failed', (error as Error).message);
      continue;
    }
    const { current } = located;
    if (current.kind === 'other') {
      conflict(target, 'changed_since', `it is now ${current.what}; it was left alone`);
      continue;
    }
    const fromHash = current.kind === 'file' ? current.hash : null;
    if (same(current, target.target)) {
      outcome.files.push(
        target.target.kind === 'folder'
          ? { path: target.path, from: null, to: null, folder: 'unchanged' }
          : { path: target.path, from: fromHash, to: fromHash },
      );
      continue;
    }
    if (!options.force) {
      if (target.laterSteps.length > 0) {
        conflict(target, 'changed_by_other_step', `step${target.laterSteps.length > 1 ? 's' : ''} ${target.laterSteps.join(', ')} changed it afterwards`);
        continue;
      }
      if (!target.expected) {
        conflict(target, 'changed_since', 'what the run last left there is not known, so a change since cannot be ruled out');
        continue;
      }
      if (!same(current, target.expected)) {
        conflict(target, 'changed_since', `it was changed after the run (the run left it ${describe(target.expected)}, it is now ${describe(current)})`);
        continue;
      }
    }
    let bytes: Buffer | undefined;
    if (target.target.kind === 'file') {
      bytes = await options.store.get(target.target.hash);
      if (!bytes) {
        conflict(target, 'not_restorable', 'its saved content is missing from the checkpoint folder');
        continue;
      }
    }
    if (options.dryRun) {
      outcome.files.push(entryFor(target, fromHash, current));
      continue;
    }
    try {
      // What is overwritten is kept, so that this revert can be undone.
      if (located.bytes && current.kind === 'file') await options.store.put(located.bytes, current.hash);
      await putBack(located, target.target, bytes, realRoot);
      outcome.files.push(entryFor(target, fromHash, current));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      conflict(
        target,
        code === 'ENOTEMPTY' || code === 'EEXIST' ? 'changed_since' : 'failed',
        code === 'ENOTEMPTY' || code === 'EEXIST' ? 'the folder is not empty (files not made by the run are in it)' : (error as Error).message,
      );
    }
  }
  return outcome;
}

function entryFor(target: RevertTarget, fromHash: string | null, current: DiskState): RevertedFile {
  if (target.target.kind === 'folder') return { path: target.path, from: null, to: null, folder: 'created' };
  if (current.kind === 'folder') return { path: target.path, from: null, to: null, folder: 'removed' };
  return { path: target.path, from: fromHash, to: target.target.kind === 'file' ? target.target.hash : null };
}

async function putBack(located: Located, target: DiskState, bytes: Buffer | undefined, realRoot: string): Promise<void> {
  const { real, current } = located;
  if (target.kind === 'folder') {
    if (current.kind === 'file') await unlink(real);
    await mkdir(real, { recursive: true });
    return;
  }
  if (current.kind === 'folder') await rmdir(real);
  if (target.kind === 'absent') {
    if (current.kind === 'file') await unlink(real);
    return;
  }
  await writeContent(real, bytes!, realRoot);
}
