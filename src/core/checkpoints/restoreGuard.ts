import type { Stats } from 'node:fs';
import path from 'node:path';
import { isInside } from '../files/workspaceJail';
import { compileProtectedPaths, matchForms, type ProtectedPathRules } from '../files/protectedPaths';

// What a restore (revert, undo, a resume's or a replan's put-back) may write, judged on the
// resolved path (docs/design.md, “Checkpoints and revert”). A trace and its checkpoint folder are
// input anyone with write access to them can forge, so a restore writes through the same guards as
// the file tools: never inside a `.git` folder (at any depth) nor over the run's own trace, lock or
// checkpoint folder; a protected path (cortex.policy.protectedPaths write list) or a file with
// several hard links only when the person confirmed that path; regular files only.

export type RestoreVerdict =
  | { kind: 'allowed' }
  /** Never written, whatever anyone confirms. */
  | { kind: 'refused'; detail: string }
  /** Written only once the person confirmed this path. */
  | { kind: 'protected'; detail: string };

export interface RestoreGuardOptions {
  /** cortex.policy.protectedPaths (the write list is what matters). */
  protectedPaths: ProtectedPathRules;
  /** Workspace-relative paths the person confirmed for this restore ('/'-separated). */
  confirmed?: Iterable<string>;
  /** Absolute paths of the run's own files (trace, lock, checkpoint folder): never restored. */
  runFiles?: readonly string[];
}

export interface RestoreGuard {
  /** The verdict for `relative` (the resolved workspace-relative path); `existing` is its lstat when it exists. */
  judge(realRoot: string, relative: string, existing?: Stats): RestoreVerdict;
}

/** A path spelled for comparison: case-folded, with the spellings Windows treats as equal. */
function confirmKey(relative: string): string {
  return matchForms(relative).at(-1)!;
}

/** Whether any segment of the path is a `.git` folder (in any spelling the disk may treat as one). */
function insideGit(relative: string): boolean {
  return matchForms(relative).some((form) => form.split('/').includes('.git'));
}

export function createRestoreGuard(options: RestoreGuardOptions): RestoreGuard {
  const matcher = compileProtectedPaths(options.protectedPaths);
  const confirmed = new Set([...(options.confirmed ?? [])].map(confirmKey));
  const runFiles = (options.runFiles ?? []).map((file) => path.resolve(file));
  return {
    judge(realRoot, relative, existing) {
      if (insideGit(relative)) return { kind: 'refused', detail: 'it is inside a .git folder, which a restore never writes' };
      const real = path.join(realRoot, relative);
      const own = runFiles.find((file) => isInside(file, real) || isInside(real, file));
      if (own) return { kind: 'refused', detail: `it is (or holds) the run's own trace, lock or checkpoint folder (${own}), which a restore never writes` };
      if (confirmed.has(confirmKey(relative))) return { kind: 'allowed' };
      const glob = matcher.match('write', relative);
      if (glob !== undefined) return { kind: 'protected', detail: `it is a protected path (cortex.policy.protectedPaths write: ${glob})` };
      if (existing?.isFile() && existing.nlink > 1)
        return { kind: 'protected', detail: `it has ${existing.nlink} hard links (writing it changes every linked copy, which may be outside the workspace)` };
      return { kind: 'allowed' };
    },
  };
}
