import { realpathSync } from 'node:fs';
import path from 'node:path';
import { isInside } from '../files/workspaceJail';
import { matchForms, type ProtectedPathMatcher } from '../files/protectedPaths';

// The run's own trace, lock and checkpoint folder are what a later revert or resume trusts, so the
// run's tools must never write them (docs/design.md, “Checkpoints and revert”). When they lie
// inside the workspace they are protected paths for the whole run, for writing: a file tool asks
// first (and is denied under --approve none), and is refused at access when it was not approved.

/** Where `file` really is, even when it (or its folder) does not exist yet. */
function realish(file: string): string {
  const absolute = path.resolve(file);
  try {
    return realpathSync.native(absolute);
  } catch {
    try {
      return path.join(realpathSync.native(path.dirname(absolute)), path.basename(absolute));
    } catch {
      return absolute;
    }
  }
}

/** The run files inside the workspace, as case-folded relative paths; empty when none is. */
export function runFilesInside(workspaceRoot: string, runFiles: readonly string[]): string[] {
  if (runFiles.length === 0) return [];
  let realRoot: string;
  try {
    realRoot = realpathSync.native(workspaceRoot);
  } catch {
    return [];
  }
  const inside: string[] = [];
  for (const file of runFiles) {
    const real = realish(file);
    if (real !== realRoot && isInside(realRoot, real)) inside.push(...matchForms(path.relative(realRoot, real).split(path.sep).join('/')));
  }
  return inside;
}

/** `matcher`, plus the run's own files (relative paths from `runFilesInside`) protected for writing. */
export function withRunFiles(matcher: ProtectedPathMatcher, inside: readonly string[]): ProtectedPathMatcher {
  if (inside.length === 0) return matcher;
  return {
    match(access, relativePath) {
      const found = matcher.match(access, relativePath);
      if (found !== undefined || access !== 'write') return found;
      const forms = matchForms(relativePath);
      const own = inside.find((item) => forms.some((form) => form === item || form.startsWith(`${item}/`) || item.startsWith(`${form}/`)));
      return own === undefined ? undefined : `the run's own trace, lock or checkpoint folder (${own})`;
    },
  };
}
