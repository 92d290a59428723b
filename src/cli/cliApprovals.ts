import { createInterface } from 'node:readline/promises';
import type { ApprovalBroker, ApprovalRequest } from '../core/policy/approvalBroker';
import { terminalSafe } from '../core/text/terminalSafe';

/**
 * Answers approval requests in the terminal: `--approve all|none` answers every request; without
 * it a TTY is asked one request at a time, and without a TTY the request is denied (never allowed
 * silently). The prompt shows the exact command with every terminal control made visible, so a
 * command cannot hide part of itself (a carriage return, an erase-line or a concealed-text sequence).
 */
export function attachCliApprovals(
  broker: ApprovalBroker,
  mode: 'all' | 'none' | 'plan' | undefined,
  io: { input: NodeJS.ReadableStream & { isTTY?: boolean }; output: NodeJS.WritableStream },
): () => void {
  const seen = new Set<string>();
  let queue: Promise<void> = Promise.resolve();
  const answer = (request: ApprovalRequest, decision: 'approve' | 'deny', feedback?: string, source = 'cli') =>
    broker.answer({ requestId: request.requestId, callId: request.callId, argsHash: request.argsHash, decision, feedback, source });

  const ask = async (request: ApprovalRequest) => {
    const rl = createInterface({ input: io.input, output: io.output, terminal: true });
    try {
      const reply = await rl.question(approvalPrompt(request));
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

/** The TTY question for one request; everything in it that came from the model is terminal-safe. */
export function approvalPrompt(request: ApprovalRequest): string {
  const what = request.toolName === 'run_command' ? commandOf(request.argumentsJson) : request.argumentsJson;
  const kind = request.required ? 'REQUIRED approval' : 'Approval';
  return `\n[cortex] ${kind} for ${terminalSafe(request.toolName)} (step ${request.stepId}): ${terminalSafe(what)}\n  reason: ${terminalSafe(request.reason)}\n  Approve? [y/N] `;
}

/** The command in backticks, or the raw arguments when they hold no command string. */
function commandOf(argumentsJson: string): string {
  try {
    const value = JSON.parse(argumentsJson) as { command?: unknown };
    return typeof value.command === 'string' ? `\`${value.command}\`` : argumentsJson;
  } catch {
    return argumentsJson;
  }
}
