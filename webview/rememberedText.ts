import { describeRule, type ApprovalScope, type RememberedRule } from '../src/core/plan/rememberedApproval';

// How the details pane says that an approval reached beyond its call (docs/design.md, “Remembered
// approvals”): the answer that was remembered, or the remembered answer that approved this call.

const SCOPE_TEXT: Record<Exclude<ApprovalScope, 'call'>, string> = { run: 'for this run', workspace: 'always in this workspace' };

/** The sentence for a call's approval, or undefined when it was answered for this call only. */
export function rememberedText(approval: { answeredBy?: string; scope?: ApprovalScope; remembered?: RememberedRule }): string | undefined {
  if (!approval.remembered || !approval.scope || approval.scope === 'call') return undefined;
  const covers = `${describeRule(approval.remembered)} ${SCOPE_TEXT[approval.scope]}`;
  return approval.answeredBy === 'remembered' ? `approved without asking by the earlier answer that allowed ${covers}` : `this answer also allowed ${covers}`;
}
