import path from 'node:path';
import type { ProtectedPathMatcher } from '../files/protectedPaths';
import { globMatcher } from '../files/globPattern';
import type { StepScope } from '../plan/stepScope';
import { describeScope } from '../plan/stepScope';
import { argumentLeavingByText, pathCandidates } from './argumentPaths';
import { declaredFileAccesses, type FileAccessDeclaration } from './fileAccess';
import { parseLiteralCommand } from './literalCommand';
import type { PolicyVerdict, ToolKind } from './toolPolicy';

// Whether a call lies inside its step's approved scope (docs/design.md, “Step scopes and plan
// approval”), and what that changes in the policy's verdict. Only file writes and commands are
// scoped: reads and searches never are, and other tools (MCP tools are of kind `other`, the memory
// tools name no workspace file) are decided as without a plan. A command entry covers that exact command, or it followed by more plain words; the command
// must be literal words (literalCommand.ts), so `npm test; rm -rf x`, `npm test && …`, `$(…)`,
// redirections and globs never match any entry. A protected path is never covered, whatever the
// globs say, and neither is an argument that leaves the workspace.

/** Extra arguments an entry may be followed by: plain characters only, nothing a shell would read. */
const PLAIN_WORD = /^[A-Za-z0-9_\-.,/:@%+=^]+$/;

/** A workspace-relative, '/'-separated form of `target`, or undefined when it is outside the workspace. */
export function scopeRelativePath(workspaceRoot: string, target: string): string | undefined {
  const slashed = target.replace(/\\/g, '/');
  const relative = path.posix.isAbsolute(slashed) ? path.posix.relative(workspaceRoot.replace(/\\/g, '/'), slashed) : slashed;
  const normalized = path.posix.normalize(relative).replace(/^\.\//, '').replace(/\/$/, '');
  if (normalized === '' || normalized === '.' || normalized === '..' || normalized.startsWith('../') || path.posix.isAbsolute(normalized)) return undefined;
  return normalized;
}

function isProtected(matcher: ProtectedPathMatcher | undefined, relativePath: string): boolean {
  return matcher !== undefined && (matcher.match('write', relativePath) !== undefined || matcher.match('read', relativePath) !== undefined);
}

/** True when `relativePath` (workspace-relative) matches one of the scope's write globs and is not protected. */
export function writeInScope(scope: StepScope | undefined, relativePath: string, matcher?: ProtectedPathMatcher): boolean {
  if (!scope?.write?.length || isProtected(matcher, relativePath)) return false;
  return scope.write.some((glob) => globMatcher(glob)(relativePath));
}

/** True when creating or deleting the folder `relativePath` is in scope: a glob matches it or reaches inside it (`out/**` for `out`). */
export function folderInScope(scope: StepScope | undefined, relativePath: string, matcher?: ProtectedPathMatcher): boolean {
  if (writeInScope(scope, relativePath, matcher)) return true;
  if (!scope?.write?.length || isProtected(matcher, relativePath)) return false;
  // A NUL never occurs in a real name: it stands for "anything inside the folder".
  return scope.write.some((glob) => glob.includes('/') && globMatcher(glob)(`${relativePath}/\u0000`));
}

/** The scope entry that covers `command`, if any (see the file comment for the rule). */
export function coveringCommand(scope: StepScope | undefined, command: string, matcher?: ProtectedPathMatcher): string | undefined {
  if (!scope?.commands?.length) return undefined;
  const parsed = parseLiteralCommand(command.trim());
  if (!parsed.ok || parsed.words.length === 0) return undefined;
  const words = parsed.words;
  // A word that names a protected file or leaves the workspace is never covered by a plan.
  if (argumentLeavingByText(words.slice(1))) return undefined;
  if (words.some((word) => pathCandidates(word).some((candidate) => isProtected(matcher, candidate.replace(/^\.\//, ''))))) return undefined;
  return scope.commands.find((entry) => {
    const allowed = parseLiteralCommand(entry.trim());
    if (!allowed.ok || allowed.words.length === 0 || allowed.words.length > words.length) return false;
    if (!allowed.words.every((word, i) => word === words[i])) return false;
    return words.slice(allowed.words.length).every((word) => PLAIN_WORD.test(word));
  });
}

/** A call as the scope sees it. */
export interface ScopedCall {
  tool: { kind: ToolKind; readOnly: boolean } & FileAccessDeclaration;
  args: unknown;
  /** The call creates folders (create_directory), not files. */
  folders?: boolean;
  /**
   * Where each written path really leads, workspace-relative with links followed (undefined:
   * outside the workspace or unresolvable). A write through a link is covered only when both the
   * path as written and the file it reaches are in scope.
   */
  realPaths?: ReadonlyMap<string, string | undefined>;
}

/** `unscoped`: a scope says nothing about this call; `covered`: inside it; `outside`: drift, with what and why in words. */
export type ScopeJudgement = { kind: 'unscoped' } | { kind: 'covered'; what: string } | { kind: 'outside'; what: string };

/** Whether `call` lies inside `scope` (the step's approved scope). */
export function judgeScope(call: ScopedCall, scope: StepScope | undefined, workspaceRoot: string, matcher?: ProtectedPathMatcher): ScopeJudgement {
  const { tool } = call;
  if (tool.readOnly || tool.kind === 'read') return { kind: 'unscoped' };
  if (tool.kind === 'command') {
    const command = commandOf(call.args);
    if (command === undefined) return { kind: 'outside', what: 'runs a command without a command line' };
    const entry = coveringCommand(scope, command, matcher);
    return entry !== undefined ? { kind: 'covered', what: `runs \`${command}\`` } : { kind: 'outside', what: `runs \`${command}\`` };
  }
  if (tool.kind !== 'write') return { kind: 'unscoped' };
  const writes = declaredFileAccesses(tool, call.args).filter((access) => access.access === 'write');
  // A write tool that names no workspace file (the memory tools) is not a workspace write.
  if (writes.length === 0) return { kind: 'unscoped' };
  const paths = writes.map((access) => ({ given: access.path, relative: scopeRelativePath(workspaceRoot, access.path) }));
  const inScope = call.folders ? folderInScope : writeInScope;
  const reaches = (given: string, relative: string) => {
    if (!call.realPaths) return true;
    const real = call.realPaths.get(given);
    return real !== undefined && (real === relative || inScope(scope, real, matcher));
  };
  const outside = paths.filter((p) => p.relative === undefined || !inScope(scope, p.relative, matcher) || !reaches(p.given, p.relative));
  const what = `writes ${(outside.length > 0 ? outside : paths).map((p) => p.relative ?? p.given).join(', ')}`;
  return outside.length === 0 ? { kind: 'covered', what } : { kind: 'outside', what };
}

/**
 * The verdict under an approved plan: a covered call that only needed a plain confirmation runs
 * without asking; a call outside the scope asks (drift). Deny rules, `confirm-required` gates and
 * protected files stay as they were: a plan never approves those.
 */
export function verdictUnderPlan(verdict: PolicyVerdict, judgement: ScopeJudgement, scope: StepScope | undefined): PolicyVerdict {
  if (judgement.kind === 'unscoped' || verdict.decision === 'deny') return verdict;
  if (judgement.kind === 'covered') {
    if (verdict.decision !== 'confirm' || verdict.required || verdict.protectedAccess?.length) return verdict;
    return {
      ...verdict,
      decision: 'allow',
      reason: `inside the step's approved scope (${describeScope(scope)})`,
      rules: [...verdict.rules, 'cortex.approval.mode = plan'],
    };
  }
  const drift = `outside the step's approved scope: it ${judgement.what}, and the step's scope is ${describeScope(scope)}`;
  if (verdict.decision === 'confirm') return { ...verdict, reason: `${drift}; ${verdict.reason}` };
  return {
    ...verdict,
    decision: 'confirm',
    required: false,
    denyEffect: 'continue',
    reason: drift,
    rules: [...verdict.rules, 'cortex.approval.mode = plan: drift'],
  };
}

function commandOf(args: unknown): string | undefined {
  let value = args;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      return undefined;
    }
  }
  const command = value && typeof value === 'object' ? (value as { command?: unknown }).command : undefined;
  return typeof command === 'string' ? command : undefined;
}
