import type { Stats } from 'node:fs';
import { lstat } from 'node:fs/promises';
import { declaredFileAccesses, type FileAccessDeclaration } from './fileAccess';
import { displayPath, resolveInWorkspace } from '../files/workspaceJail';
import type { FileAccessKind, ProtectedPathMatcher } from '../files/protectedPaths';

// What makes one file access need confirmation: the resolved path matches a protected glob, or
// (for writes) the existing file has more than one hard link (writing it changes every other name
// of it, which may be outside the workspace) or is executable (its new content would run as a
// program, e.g. a hook run by git). The policy asks about these before a call runs; the tools check
// again right before touching the file, so what was approved is what gets written.

export interface ProtectedAccess {
  access: FileAccessKind;
  /** Resolved workspace-relative path, '/'-separated. */
  path: string;
  kind: 'pattern' | 'hard-link' | 'executable';
  /** The glob that matched, or the link count. */
  detail: string;
}

/** The sentence shown in the approval request (and to the model when refused). */
export function describeProtectedAccess(found: ProtectedAccess): string {
  switch (found.kind) {
    case 'pattern':
      return `protected path ${found.path} (cortex.policy.protectedPaths ${found.access}: ${found.detail})`;
    case 'hard-link':
      return `${found.path} has ${found.detail} hard links (writing it changes every linked copy, which may be outside the workspace)`;
    case 'executable':
      return `${found.path} is executable (its new content would run as a program)`;
  }
}

/** Identity of a finding for approval: the same access, kind and path (case-folded). */
export function protectedAccessKey(found: ProtectedAccess): string {
  return `${found.access}\u0000${found.kind}\u0000${found.path.normalize('NFC').toLowerCase()}`;
}

/**
 * Findings for one resolved path. `existing` is the file's lstat/fstat when it exists; link count
 * and executable bits are only judged for regular files being written.
 */
export function assessAccess(matcher: ProtectedPathMatcher, realRoot: string, realPath: string, access: FileAccessKind, existing?: Stats): ProtectedAccess[] {
  const path = displayPath(realRoot, realPath);
  const found: ProtectedAccess[] = [];
  const glob = matcher.match(access, path);
  if (glob !== undefined) found.push({ access, path, kind: 'pattern', detail: glob });
  if (access === 'write' && existing?.isFile()) {
    if (existing.nlink > 1) found.push({ access, path, kind: 'hard-link', detail: String(existing.nlink) });
    // Windows has no executable bit (Node reports one from the file extension).
    if (process.platform !== 'win32' && (existing.mode & 0o111) !== 0)
      found.push({ access, path, kind: 'executable', detail: (existing.mode & 0o777).toString(8) });
  }
  return found;
}

/**
 * The protected accesses a call would make, found before it runs. A path that cannot be resolved
 * (outside the workspace, unreadable) yields nothing here: the tool refuses it itself, and its own
 * check right before the access still applies.
 */
export async function findProtectedAccess(
  tool: FileAccessDeclaration | undefined,
  args: unknown,
  workspaceRoot: string,
  realRoot: string,
  matcher: ProtectedPathMatcher,
): Promise<ProtectedAccess[]> {
  const found: ProtectedAccess[] = [];
  for (const declared of declaredFileAccesses(tool, args)) {
    let real: string;
    try {
      real = await resolveInWorkspace(workspaceRoot, declared.path);
    } catch {
      continue;
    }
    // Link count and mode only matter for a write.
    const existing = declared.access === 'write' ? await lstatOrUndefined(real) : undefined;
    for (const item of assessAccess(matcher, realRoot, real, declared.access, existing)) {
      if (!found.some((other) => protectedAccessKey(other) === protectedAccessKey(item))) found.push(item);
    }
  }
  return found;
}

/** lstat, or undefined for a path that is not there. */
async function lstatOrUndefined(real: string): Promise<Stats | undefined> {
  return lstat(real).catch(() => undefined);
}
