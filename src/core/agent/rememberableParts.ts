import { declaredFileAccesses } from '../policy/fileAccess';
import type { RememberableParts } from '../policy/approvalBroker';
import type { BatchEntry } from './batchPlan';

// Which calls a remembered answer may ever cover (docs/design.md, “Remembered approvals”): never a
// confirm-required gate, never a call that reaches a protected file, never in an untrusted
// workspace. Deny rules are decided before (a denied call is never asked), and the sandbox applies
// to every command whoever approved it.

type ConfirmEntry = Extract<BatchEntry, { disposition: 'confirm' }>;

/** The parts the remembered rules read, or undefined when no remembered answer may approve this call. */
export function rememberableParts(entry: ConfirmEntry, trusted: boolean): RememberableParts | undefined {
  const { call, verdict } = entry;
  if (!trusted || verdict.required || (verdict.protectedAccess?.length ?? 0) > 0) return undefined;
  if (call.tool.kind === 'command') {
    const text = call.args.command;
    if (typeof text !== 'string' || !verdict.command) return undefined;
    return { command: { text, handoffs: verdict.command.handoffs, errors: verdict.command.errors } };
  }
  const paths = declaredFileAccesses(call.tool, call.args).map((access) => access.path);
  return paths.length > 0 ? { paths } : {};
}
