import type { ApprovalBroker, ApprovalRequest } from '../core/policy/approvalBroker';
import { describeRule } from '../core/plan/rememberedApproval';
import { terminalSafe } from '../core/text/terminalSafe';
import { terminalQuestions, type TerminalQuestions } from './terminalQuestions';

/**
 * Answers approval requests in the terminal: `--approve all|none` answers every request; without
 * it a TTY is asked one request at a time, and without a TTY the request is denied (never allowed
 * silently). A TTY may also answer "for this run" (docs/design.md, “Remembered approvals”): later
 * calls that answer covers run unasked until the run ends; the CLI keeps nothing beyond the run. The prompt shows the exact command with every terminal control made visible, so a
 * command cannot hide part of itself (a carriage return, an erase-line or a concealed-text sequence).
 */
export function attachCliApprovals(
  broker: ApprovalBroker,
  mode: 'all' | 'none' | 'plan' | undefined,
  io: { input: NodeJS.ReadableStream & { isTTY?: boolean }; output: NodeJS.WritableStream },
  questions: TerminalQuestions = terminalQuestions(io),
): () => void {
  const seen = new Set<string>();
  const answer = (request: ApprovalRequest, decision: 'approve' | 'deny', feedback?: string, source = 'cli', scope?: 'run') =>
    broker.answer({
      requestId: request.requestId,
      callId: request.callId,
      argsHash: request.argsHash,
      decision,
      feedback,
      source,
      ...(scope ? { scope } : {}),
    });

  const ask = async (request: ApprovalRequest) => {
    // Answered meanwhile (a remembered answer given to another request covered it): nothing to ask.
    const reply = await questions.ask(
      () => approvalPrompt(request),
      () => broker.pending().some((p) => p.requestId === request.requestId),
    );
    if (reply === undefined) return;
    if (request.remember && /^r(un)?$/i.test(reply)) answer(request, 'approve', undefined, 'cli-tty', 'run');
    else answer(request, /^y(es)?$/i.test(reply) ? 'approve' : 'deny', undefined, 'cli-tty');
  };

  return broker.onDidChange((pending) => {
    for (const request of pending) {
      if (seen.has(request.requestId)) continue;
      seen.add(request.requestId);
      if (mode === 'all') answer(request, 'approve', undefined, 'cli --approve all');
      else if (mode === 'none') answer(request, 'deny', 'denied by --approve none', 'cli --approve none');
      else if (!io.input.isTTY) answer(request, 'deny', 'no terminal to ask for approval (use --approve all|none)', 'cli no-tty');
      else void ask(request).catch(() => undefined);
    }
  });
}

/** The TTY question for one request; everything in it that came from the model is terminal-safe. */
export function approvalPrompt(request: ApprovalRequest): string {
  const what = request.toolName === 'run_command' ? commandOf(request.argumentsJson) : request.argumentsJson;
  const kind = request.required ? 'REQUIRED approval' : 'Approval';
  const question = request.remember
    ? `  Approve? [y]es / [r] yes for this run, also ${terminalSafe(describeRule(request.remember.rule))} / [N]o `
    : '  Approve? [y/N] ';
  return `\n[cortex] ${kind} for ${terminalSafe(request.toolName)} (step ${request.stepId}): ${terminalSafe(what)}\n  reason: ${terminalSafe(request.reason)}\n${question}`;
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
