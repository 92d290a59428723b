import * as vscode from 'vscode';
import type { ApprovalRequestMessage } from '../protocol/messages';
import type { ApprovalChoice, ApprovalStatusView } from './approvalAttention';
import { clip } from '../core/text/clip';

// The VS Code side of ApprovalAttention: the notification with Approve/Deny and the status bar
// entry. Notification answers go through the same broker as the panel's buttons (brokerApprovals),
// so whichever comes first wins and the other is refused as already answered (and recorded).

const SUMMARY_MAX = 160;

/** A one-line summary of what would run, for the notification text. */
export function summarizeCall(request: Pick<ApprovalRequestMessage, 'toolName' | 'argumentsJson'>): string {
  let text = request.argumentsJson;
  try {
    const args = JSON.parse(request.argumentsJson) as Record<string, unknown>;
    if (typeof args.command === 'string') text = args.command;
    else if (typeof args.path === 'string') text = `${request.toolName} ${args.path}`;
  } catch {
    // Show the raw text.
  }
  text = text.replace(/\s+/g, ' ').trim();
  return clip(text, SUMMARY_MAX, { markerWithin: true });
}

/** The notification for one request. */
export async function showApprovalNotification(request: ApprovalRequestMessage): Promise<ApprovalChoice> {
  const gate = request.required ? ' (required)' : '';
  const choice = await vscode.window.showWarningMessage(
    `Cortex wants to run \`${summarizeCall(request)}\`${gate} — ${request.reason}`,
    'Approve',
    'Deny',
    'Show panel',
  );
  return choice === 'Approve' ? 'approve' : choice === 'Deny' ? 'deny' : choice === 'Show panel' ? 'showPanel' : undefined;
}

/** The status bar entry; a click runs `cortex.showPanel` for the run whose approval waits. */
export function statusBarApprovalView(item: vscode.StatusBarItem): ApprovalStatusView {
  return {
    show: ({ text, tooltip, runId }) => {
      item.text = text;
      item.tooltip = tooltip;
      item.accessibilityInformation = { label: `${text.replace(/^\$\([^)]*\)\s*/, '')}: show the Cortex panel`, role: 'button' };
      item.command = { command: 'cortex.showPanel', title: 'Show the Cortex panel', arguments: [runId] };
      item.show();
    },
    hide: () => item.hide(),
  };
}
