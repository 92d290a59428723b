import { realpathSync } from 'node:fs';
import { createFileGuard, type FileGuard } from './fileGuard';
import type { FileAccessDeclaration } from '../policy/fileAccess';
import { findProtectedAccess, type ProtectedAccess } from '../policy/fileProtection';
import { compileProtectedPaths, type ProtectedPathMatcher, type ProtectedPathRules } from '../files/protectedPaths';
import { runFilesInside, withRunFiles } from '../policy/runFileProtection';

// The protected-path checks of one batch of tool calls, compiled once: `find` before the policy
// decides a call, `guard` for the tool context of a call that may run (allowed, or approved with
// the findings the person saw).

export interface CallProtection {
  /** The compiled cortex.policy.protectedPaths, for tools that check paths themselves (commands). */
  readonly matcher: ProtectedPathMatcher;
  find(tool: FileAccessDeclaration | undefined, args: unknown): Promise<ProtectedAccess[]>;
  guard(approved: readonly ProtectedAccess[] | undefined): FileGuard;
}

/** `runFiles`: the run's trace, lock and checkpoint folder, protected for writing when inside the workspace. */
export function callProtection(workspaceRoot: string, rules: ProtectedPathRules, runFiles: readonly string[] = []): CallProtection {
  const matcher = withRunFiles(compileProtectedPaths(rules), runFilesInside(workspaceRoot, runFiles));
  let root: string | undefined;
  return {
    matcher,
    async find(tool, args) {
      root ??= realRootOr(workspaceRoot);
      return findProtectedAccess(tool, args, workspaceRoot, root, matcher);
    },
    guard: (approved) => createFileGuard(workspaceRoot, matcher, approved ?? []),
  };
}

/** The real workspace root (synchronous, as in workspaceJail.ts), or the root as given. */
function realRootOr(workspaceRoot: string): string {
  try {
    return realpathSync.native(workspaceRoot);
  } catch {
    return workspaceRoot;
  }
}
