import * as vscode from 'vscode';
import { describeRule } from '../core/plan/rememberedApproval';
import { ApprovalMemory } from '../core/policy/approvalMemory';
import type { Logger } from '../core/ports';
import { sameRule } from '../core/policy/rememberedRules';
import { workspacePrefixStore } from './rememberedApprovalStore';
import type { StateLike } from './mcpConsentStore';

// "Cortex: Manage approvals": the command prefixes this workspace always allows (docs/design.md,
// “Remembered approvals”), in a quick pick; the ones picked are removed. Answers given "for this
// run" are not listed: they end with their run.

interface RuleItem extends vscode.QuickPickItem {
  rule: ReturnType<ApprovalMemory['workspaceRules']>[number];
}

export async function manageApprovals(state: StateLike, logger: Logger): Promise<void> {
  const store = workspacePrefixStore(state);
  const memory = new ApprovalMemory({ store, logger });
  const rules = memory.workspaceRules();
  if (rules.length === 0) {
    void vscode.window.showInformationMessage(
      'Cortex: no command is always allowed in this workspace. Choose "Always allow in this workspace" on a waiting command to add one.',
    );
    return;
  }
  const items: RuleItem[] = rules.map((rule) => ({
    rule,
    label: describeRule(rule),
    description: 'always allowed in this workspace',
    detail: `Runs unasked when the command is exactly this or this followed by plain words (never with shell syntax, never in Restricted Mode).`,
  }));
  const picked = await vscode.window.showQuickPick(items, {
    title: 'Cortex: Manage approvals',
    placeHolder: 'Select the command prefixes to remove, then press Enter',
    canPickMany: true,
    ignoreFocusOut: true,
  });
  if (!picked || picked.length === 0) return;
  // Only the valid entries are kept: a malformed one was already dropped (and logged) on reading.
  const kept = rules.filter((rule) => !picked.some((item) => sameRule(item.rule, rule)));
  await store.write(kept);
  logger.info(`remembered approvals: removed ${picked.map((item) => item.label).join(', ')}`);
  void vscode.window.showInformationMessage(`Cortex: removed ${picked.length === 1 ? picked[0].label : `${picked.length} approvals`}.`);
}
