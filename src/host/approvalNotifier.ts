import * as vscode from 'vscode';
import type { ApprovalBroker } from '../core/policy/approvalBroker';
import type { Logger } from '../core/ports';
import { answerApproval, pendingApprovalMessages } from './liveRun';
import type { ApprovalRequestMessage } from '../protocol/messages';

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
  return text.length > SUMMARY_MAX ? `${text.slice(0, SUMMARY_MAX - 1)}…` : text;
}

/**
 * The second approval channel: a notification per pending request with Approve/Deny. Answers go
 * through the same broker as the panel's buttons, so whichever comes first wins and the other is
 * refused as stale.
 */
export function watchApprovals(runId: string, broker: ApprovalBroker, logger: Logger, showPanel: () => void): () => void {
  const shown = new Set<string>();
  const onChange = () => {
    for (const request of pendingApprovalMessages(broker)) {
      if (shown.has(request.requestId)) continue;
      shown.add(request.requestId);
      const gate = request.required ? ' (required)' : '';
      void vscode.window
        .showWarningMessage(`Cortex wants to run \`${summarizeCall(request)}\`${gate} — ${request.reason}`, 'Approve', 'Deny', 'Show panel')
        .then((choice) => {
          if (choice === 'Show panel') return showPanel();
          if (choice !== 'Approve' && choice !== 'Deny') return;
          const stillPending = pendingApprovalMessages(broker).some((p) => p.requestId === request.requestId);
          if (!stillPending) {
            logger.info(`run ${runId}: notification answer for ${request.callId} ignored (already answered)`);
            return;
          }
          const decision = choice === 'Approve' ? 'approve' : 'deny';
          const result = answerApproval(broker, { requestId: request.requestId, callId: request.callId, argsHash: request.argsHash, decision }, 'notification');
          if (!result.ok) void vscode.window.showWarningMessage(`That approval was not applied: ${result.reason}`);
        });
    }
  };
  onChange();
  return broker.onDidChange(onChange);
}
