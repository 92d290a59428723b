import { realpath } from 'node:fs/promises';
import type { ProtectedPathMatcher } from '../files/protectedPaths';
import { resolveInWorkspace } from '../files/workspaceJail';
import { argumentLeavingByLink } from '../policy/argumentPaths';
import { declaredFileAccesses } from '../policy/fileAccess';
import type { RememberableParts } from '../policy/approvalBroker';
import { parseLiteralCommand } from '../policy/literalCommand';
import type { BatchEntry } from './batchPlan';

// Which calls a remembered answer may ever cover (docs/design.md, “Remembered approvals”): never a
// confirm-required gate, never a call that reaches a protected file (a file tool's finding, or a
// command word naming one or leading outside the workspace, symbolic links followed), never in
// an untrusted workspace. Deny rules are decided before (a denied call is never asked), and the
// sandbox applies to every command whoever approved it.

type ConfirmEntry = Extract<BatchEntry, { disposition: 'confirm' }>;

export interface RememberPlace {
  trusted: boolean;
  workspaceRoot: string;
  protectedPaths: ProtectedPathMatcher;
}

/** The parts the remembered rules read, or undefined when no remembered answer may approve this call. */
export async function rememberableParts(entry: ConfirmEntry, place: RememberPlace): Promise<RememberableParts | undefined> {
  const { call, verdict } = entry;
  if (!place.trusted || verdict.required || (verdict.protectedAccess?.length ?? 0) > 0) return undefined;
  if (call.tool.kind === 'command') {
    const text = call.args.command;
    if (typeof text !== 'string' || !verdict.command) return undefined;
    if (!(await wordsStayUnprotected(text, call.args.cwd, place))) return undefined;
    return { command: { text, handoffs: verdict.command.handoffs, errors: verdict.command.errors } };
  }
  const paths = declaredFileAccesses(call.tool, call.args).map((access) => access.path);
  return paths.length > 0 ? { paths } : {};
}

/** True when no argument of a literal command names a protected file or leads outside the workspace (a shell line is never matched anyway). */
async function wordsStayUnprotected(text: string, cwdArg: unknown, place: RememberPlace): Promise<boolean> {
  const literal = parseLiteralCommand(text);
  if (!literal.ok) return true;
  try {
    const realRoot = await realpath(place.workspaceRoot);
    const cwd = await resolveInWorkspace(place.workspaceRoot, typeof cwdArg === 'string' ? cwdArg : '.');
    const isProtected = (relative: string) => place.protectedPaths.match('read', relative) ?? place.protectedPaths.match('write', relative);
    return (await argumentLeavingByLink(literal.words.slice(1), cwd, realRoot, isProtected)) === undefined;
  } catch {
    return false;
  }
}
