import type { Stats } from 'node:fs';
import { realpathSync } from 'node:fs';
import { assessAccess, describeProtectedAccess, protectedAccessKey, type ProtectedAccess } from '../policy/fileProtection';
import { compileProtectedPaths, DEFAULT_PROTECTED_PATHS, type FileAccessKind, type ProtectedPathMatcher } from '../files/protectedPaths';
import type { ToolContext } from './toolTypes';
import { ToolError } from './toolTypes';

// The file tools' own check, right before they touch a file: the policy asked about the paths a
// call would reach, but the disk can change between that question and the access (a symlink
// swapped in, a file hard-linked meanwhile). Anything protected that was not part of what the
// person approved is refused here. Without a guard in the context (a caller that skips the
// policy) the default lists apply with nothing approved.

export interface FileGuard {
  /** Before opening: refuses a protected path (glob match) this call was not approved for. */
  checkPath(access: FileAccessKind, realPath: string): void;
  /** After opening, with the file's fstat: refuses an unapproved hard-linked or executable file. */
  checkOpened(access: FileAccessKind, realPath: string, stats: Stats): void;
  /** For folder walks: the glob that keeps a file from being read without asking, if any. */
  readProtection(realPath: string): string | undefined;
}

/** A tool context that may carry the guard for the call (set by the batch runner). */
export interface GuardedToolContext extends ToolContext {
  fileGuard?: FileGuard;
}

let defaultMatcher: ProtectedPathMatcher | undefined;

/** A guard over `matcher` for one call; `approved` are the findings the person approved. */
export function createFileGuard(workspaceRoot: string, matcher: ProtectedPathMatcher, approved: readonly ProtectedAccess[] = []): FileGuard {
  const allowed = new Set(approved.map(protectedAccessKey));
  let root: string | undefined;
  // Synchronous, as in workspaceJail.ts: one metadata call, once per call's guard.
  const realRoot = () => (root ??= realpathSync.native(workspaceRoot));
  const refuseUnapproved = (found: ProtectedAccess[]) => {
    const refused = found.find((item) => !allowed.has(protectedAccessKey(item)));
    if (refused) throw new ToolError(`Refused: ${describeProtectedAccess(refused)} needs approval, and this call was not approved for it. It did not run.`);
  };
  return {
    checkPath(access, realPath) {
      refuseUnapproved(assessAccess(matcher, realRoot(), realPath, access).filter((item) => item.kind === 'pattern'));
    },
    checkOpened(access, realPath, stats) {
      refuseUnapproved(assessAccess(matcher, realRoot(), realPath, access, stats));
    },
    readProtection(realPath) {
      return assessAccess(matcher, realRoot(), realPath, 'read').find((item) => item.kind === 'pattern')?.detail;
    },
  };
}

/** The call's guard, or one with the default lists and nothing approved. */
export function fileGuardOf(context: ToolContext): FileGuard {
  const guard = (context as GuardedToolContext).fileGuard;
  if (guard) return guard;
  defaultMatcher ??= compileProtectedPaths(DEFAULT_PROTECTED_PATHS);
  return createFileGuard(context.workspaceRoot, defaultMatcher);
}
