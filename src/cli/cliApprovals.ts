import { createInterface } from 'node:readline/promises';
import type { ApprovalBroker, ApprovalRequest } from '../core/policy/approvalBroker';

/**
 * Answers approval requests in the terminal: `--approve all|none` answers every request; without
 * it a TTY is asked one request at a time, and without a TTY the request is denied (never allowed
 * silently).
 */
export function attachCliApprovals(broker: ApprovalBroker, mode: 'all' | 'none' | undefined, io: { input: NodeJS.ReadableStream & { isTTY?: boolean }; output: NodeJS.WritableStream }): () => void {
  const seen = new Set<string>();
  let queue: Promise<void> = Promise.resolve();
  const answer = (request: ApprovalRequest, decision: 'approve' | 'deny', feedback?: string, source = 'cli') =>
    broker.answer({ requestId: request.requestId, callId: request.callId, argsHash: request.argsHash, decision, feedback, source });

  const ask = async (request: ApprovalRequest) => {
    const rl = createInterface({ input: io.input, output: io.output, terminal: true });
    try {
      const what = request.toolName === 'run_command' ? safeCommand(request.argumentsJson) : request.argumentsJson;
      const reply = await rl.question(`\n[cortex] ${request.required ? 'REQUIRED approval' : 'Approval'} for ${request.toolName} (step ${request.stepId}): ${what}\n  reason: ${request.reason}\n  Approve? [y/N] `);
      answer(request, /^y(es)?$/i.test(reply.trim()) ? 'approve' : 'deny', undefined, 'cli-tty');
    } finally {
      rl.close();
    }
  };

  return broker.onDidChange((pending) => {
    for (const request of pending) {
      if (seen.has(request.requestId)) continue;
      seen.add(request.requestId);
      if (mode === 'all') answer(request, 'approve', undefined, 'cli --approve all');
      else if (mode === 'none') answer(request, 'deny', 'denied by --approve none', 'cli --approve none');
      else if (!io.input.isTTY) answer(request, 'deny', 'no terminal to ask for approval (use --approve all|none)', 'cli no-tty');
      else queue = queue.then(() => ask(request)).catch(() => undefined);
    }
  });
}

function safeCommand(argumentsJson: string): string {
  try {
    const value = JSON.parse(argumentsJson) as { command?: unknown };
    return typeof value.command === 'string' ? `\`${value.command}\`` : argumentsJson;
  } catch {
    return argumentsJson;
  }
}
