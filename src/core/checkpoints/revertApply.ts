import { constants, type Stats } from 'node:fs';
import { lstat, mkdir, open, readFile, realpath, rmdir, unlink } from 'node:fs/promises';
import path from 'node:path';
import { isInside, resolveInWorkspace } from '../files/workspaceJail';
import type { RevertConflict, RevertedFile } from '../plan/changeSchema';
import { hashBytes, hashFileStreaming, type ContentStore } from './contentStore';
import type { RestoreGuard } from './restoreGuard';
import type { DiskState, RevertTarget } from './revertPlan';

// Carries out a revert plan on disk (docs/design.md, “Checkpoints and revert”). Each path is checked first: a path
// someone changed since the run (its content is not the run's last), or that a step outside the
// selection changed afterwards, is a conflict and left alone unless forced; one whose earlier
// content was not saved can never be put back. What a revert overwrites is saved first, so the
// revert itself can be undone. Paths stay inside the workspace: a parent folder that now leads
// outside, or a path that became a symbolic link, is refused. Every path also passes the restore
// guard (restoreGuard.ts: never `.git` or the run's own files, protected paths only when
// confirmed), on its resolved location, and is looked at again right before it is written.

export interface RevertOptions {
  workspaceRoot: string;
  store: ContentStore;
  /** Overwrite conflicting paths (changed since, or changed by later steps). */
  force?: boolean;
  /** Only check and report; touch nothing. */
  dryRun?: boolean;
  /** Larger current contents are not saved before being overwritten (cortex.checkpoints.maxFileBytes). */
  maxFileBytes: number;
  /** What may be written at all, and what needs the person's confirmation. */
  guard: RestoreGuard;
}

export interface RevertOutcome {
  files: RevertedFile[];
  conflicts: RevertConflict[];
}

type Current = DiskState | { kind: 'other'; what: string };

interface Located {
  real: string;
  /** The resolved path, relative to the real workspace root, '/'-separated. */
  relative: string;
  current: Current;
  stats?: Stats;
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
  const resolved = path.relative(realRoot, real).split(path.sep).join('/');
  const stats = await lstatOrAbsent(real);
  if (!stats) return { real, relative: resolved, current: { kind: 'absent' } };
  const found = { real, relative: resolved, stats };
  if (stats.isDirectory()) return { ...found, current: { kind: 'folder' } };
  if (stats.isSymbolicLink()) return { ...found, current: { kind: 'other', what: 'a symbolic link' } };
  if (!stats.isFile()) return { ...found, current: { kind: 'other', what: 'not a regular file' } };
  if (stats.size > options.maxFileBytes) return { ...found, current: { kind: 'file', hash: (await hashFileStreaming(real)) ?? '' } };
  const bytes = await readFile(real);
  return { ...found, current: { kind: 'file', hash: hashBytes(bytes) }, bytes };
}

async function lstatOrAbsent(real: string): Promise<Stats | undefined> {
  try {
    return await lstat(real);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw error;
  }
}

/**
 * Right before the write: the path must still resolve to the same place and hold what was judged
 * (same type; for a file the same inode, size and modification time). Throws when it does not.
 */
async function recheck(realRoot: string, relative: string, located: Located): Promise<void> {
  const parent = path.posix.dirname(relative) === '.' ? '.' : path.posix.dirname(relative);
  const again = path.join(await resolveInWorkspace(realRoot, parent), path.posix.basename(relative));
  if (again !== located.real) throw new ChangedMeanwhile('its folder was moved or replaced by a link meanwhile');
  const stats = await lstatOrAbsent(again);
  const before = located.stats;
  const same =
    stats === undefined
      ? before === undefined
      : before !== undefined &&
        stats.isFile() === before.isFile() &&
        stats.isDirectory() === before.isDirectory() &&
        (!stats.isFile() || (stats.ino === before.ino && stats.size === before.size && stats.mtimeMs === before.mtimeMs));
  if (!same) throw new ChangedMeanwhile('it changed while the revert was checking it');
}

class ChangedMeanwhile extends Error {}

async function writeContent(real: string, bytes: Buffer, realRoot: string, exists: boolean): Promise<void> {
  const parent = path.dirname(real);
  await mkdir(parent, { recursive: true });
  // The folders just made must still be inside the workspace (nothing raced a link in).
  const parentReal = await realpath(parent);
  if (!isInside(realRoot, parentReal)) throw new Error('its folder is outside the workspace');
  // Never blocks (a FIFO swapped in), never follows a final link, never creates over a file that
  // appeared meanwhile, and truncates only once fstat says it is a regular file.
  const flags = constants.O_WRONLY | (exists ? 0 : constants.O_CREAT | constants.O_EXCL) | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);
  const handle = await open(real, flags, 0o666);
  try {
    if (!(await handle.stat()).isFile()) throw new ChangedMeanwhile('it is no longer a regular file');
    await handle.truncate(0);
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
    // Nothing to write above; from here on the path would be written.
    const verdict = judge(options.guard, realRoot, target.path, located);
    if (verdict.kind !== 'allowed') {
      conflict(target, verdict.kind, `${verdict.detail}; it was left alone${verdict.kind === 'protected' ? ' (it needs your confirmation)' : ''}`);
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
      try {
        bytes = await options.store.get(target.target.hash);
      } catch (error) {
        conflict(target, 'not_restorable', (error as Error).message);
        continue;
      }
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
      await recheck(realRoot, target.path, located);
      await putBack(located, target.target, bytes, realRoot);
      outcome.files.push(entryFor(target, fromHash, current));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (error instanceof ChangedMeanwhile || code === 'ELOOP' || code === 'ENXIO' || (code === 'EEXIST' && target.target.kind === 'file'))
        conflict(target, 'changed_since', `${error instanceof ChangedMeanwhile ? error.message : 'it changed while being put back'}; it was left alone`);
      else
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
  await writeContent(real, bytes!, realRoot, current.kind === 'file');
}

/** The guard's verdict on the recorded path and on where it resolves now (the stricter one). */
function judge(guard: RestoreGuard, realRoot: string, recorded: string, located: Located): ReturnType<RestoreGuard['judge']> {
  const verdicts = [guard.judge(realRoot, recorded, located.stats), guard.judge(realRoot, located.relative, located.stats)];
  return verdicts.find((v) => v.kind === 'refused') ?? verdicts.find((v) => v.kind === 'protected') ?? verdicts[0];
}
