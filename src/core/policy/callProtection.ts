import { realpath } from 'node:fs/promises';
import { createFileGuard, type FileGuard } from '../tools/workspace/fileGuard';
import { findProtectedAccess, type ProtectedAccess } from './fileProtection';
import { compileProtectedPaths, type ProtectedPathMatcher, type ProtectedPathRules } from './protectedPaths';

// The protected-path checks of one batch of tool calls, compiled once: `find` before the policy
// decides a call, `guard` for the tool context of a call that may run (allowed, or approved with
// the findings the person saw).

export interface CallProtection {
  /** The compiled cortex.policy.protectedPaths, for tools that check paths themselves (commands). */
  readonly matcher: ProtectedPathMatcher;
  find(tool: unknown, args: unknown): Promise<ProtectedAccess[]>;
  guard(approved: readonly ProtectedAccess[] | undefined): FileGuard;
}

export function callProtection(workspaceRoot: string, rules: ProtectedPathRules): CallProtection {
  const matcher = compileProtectedPaths(rules);
  let root: Promise<string> | undefined;
  return {
    matcher,
    async find(tool, args) {
      root ??= realpath(workspaceRoot).catch(() => workspaceRoot);
      return findProtectedAccess(tool, args, workspaceRoot, await root, matcher);
    },
    guard: (approved) => createFileGuard(workspaceRoot, matcher, approved ?? []),
  };
}
