import { lstat } from 'node:fs/promises';
import { join, posix } from 'node:path';
import type { StepCheck } from '../plan/stepChecks';
import type { StepScope } from '../plan/stepScope';

// The nearest AGENTS.md above a step's paths (docs/design.md, “Project instructions”): a monorepo
// keeps one per package, and a step that works in `packages/api` should follow that one too. A
// step's paths are what its plan entry names: the paths of its checks and the literal start of its
// write globs. Which file is nearest is decided here; reading it safely is projectInstructions'.

/** At most this many nested files per step: the nearest for each folder, the deepest first. */
export const MAX_NESTED_PER_STEP = 3;

/** The folders a step names, workspace-relative and '/'-separated, without the root. */
export function stepFolders(step: { expects?: readonly StepCheck[]; scope?: StepScope }): string[] {
  const paths: string[] = [];
  for (const check of step.expects ?? []) {
    const path =
      'changed' in check
        ? check.changed
        : 'exists' in check
          ? check.exists
          : 'absent' in check
            ? check.absent
            : 'contains' in check
              ? check.contains
              : undefined;
    if (path) paths.push(posix.dirname(path.replaceAll('\\', '/')));
  }
  for (const glob of step.scope?.write ?? []) {
    // The folders before the first segment with a glob character: `src/api/**/*.ts` → `src/api`.
    const literal: string[] = [];
    for (const segment of glob.replaceAll('\\', '/').split('/')) {
      if (/[*?[\]{}]/.test(segment)) break;
      literal.push(segment);
    }
    // A glob without a glob character names a file: its folder.
    const whole = literal.length === glob.split('/').length;
    paths.push(whole ? posix.dirname(literal.join('/')) : literal.join('/'));
  }
  const folders = new Set<string>();
  for (const path of paths) {
    const folder = posix.normalize(path || '.');
    if (folder !== '.' && folder !== '' && !folder.startsWith('..')) folders.add(folder.replace(/\/$/, ''));
  }
  return [...folders];
}

/**
 * For each folder, the workspace-relative path of the nearest `fileName` at or above it and below
 * the root (the root's is read for the whole run). Existence is only looked at here (lstat); the
 * file is read, with every check, by projectInstructions.
 */
export async function nearestFiles(workspaceRoot: string, folders: readonly string[], fileName: string): Promise<string[]> {
  const found = new Set<string>();
  // Deepest folders first, so the cap keeps the most specific files.
  for (const folder of [...folders].sort((a, b) => b.split('/').length - a.split('/').length)) {
    for (let at = folder; at !== '.' && at !== ''; at = posix.dirname(at)) {
      const candidate = `${at}/${fileName}`;
      if (found.has(candidate)) break;
      const exists = await lstat(join(workspaceRoot, candidate)).then(
        () => true,
        () => false,
      );
      if (exists) {
        found.add(candidate);
        break;
      }
    }
    if (found.size >= MAX_NESTED_PER_STEP) break;
  }
  return [...found];
}
