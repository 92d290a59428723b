import { createInterface } from 'node:readline/promises';
import type { ApprovalBroker, ApprovalRequest } from '../core/policy/approvalBroker';
import type { PlanApprovalState } from '../core/plan/planApprovalSchema';
import { terminalSafe } from '../core/text/terminalSafe';
import { planApprovalPrompt } from './planApprovalPrompt';

/**
 * Answers approval requests in the terminal: `--approve all|none` answers every request; without
 * it a TTY is asked one request at a time, and without a TTY the request is denied (never allowed
 * silently). `--approve plan` approves the plan itself (docs/design.md, “Step scopes and plan
 * approval”); what lies outside it (a drifting call, a widening replan) is asked as without a flag.
 * The prompt shows the exact command with every terminal control made visible, so a command cannot
 * hide part of itself (a carriage return, an erase-line or a concealed-text sequence).
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

  const question = async (text: string): Promise<string> => {
    const rl = createInterface({ input: io.input, output: io.output, terminal: true });
    try {
      return await rl.question(text);
    } finally {
      rl.close();
    }
  };
  const ask = async (request: ApprovalRequest) => {
    const reply = await question(approvalPrompt(request));
    answer(request, /^y(es)?$/i.test(reply.trim()) ? 'approve' : 'deny', undefined, 'cli-tty');
  };
  // A plan is approved with y; anything else denies it, and words other than n/no are the feedback for a new plan.
  const askPlan = async (request: PlanApprovalState) => {
    const reply = (await question(planApprovalPrompt(request))).trim();
    const approved = /^y(es)?$/i.test(reply);
    const feedback = approved || /^(n|no)?$/i.test(reply) ? undefined : reply;
    broker.plans.answer({ requestId: request.requestId, approved, feedback, source: 'cli-tty' });
  };

  const stopCalls = broker.onDidChange((pending) => {
    for (const request of pending) {
      if (seen.has(request.requestId)) continue;
      seen.add(request.requestId);
      if (mode === 'all') answer(request, 'approve', undefined, 'cli --approve all');
      else if (mode === 'none') answer(request, 'deny', 'denied by --approve none', 'cli --approve none');
      else if (!io.input.isTTY) answer(request, 'deny', 'no terminal to ask for approval (use --approve all|none)', 'cli no-tty');
      else queue = queue.then(() => ask(request)).catch(() => undefined);
    }
  });
  const stopPlans = broker.plans.onDidChange((request) => {
    if (!request || seen.has(request.requestId)) return;
    seen.add(request.requestId);
    const plans = broker.plans;
    if (mode === 'all' || (mode === 'plan' && request.kind === 'plan'))
      plans.answer({ requestId: request.requestId, approved: true, source: `cli --approve ${mode}` });
    else if (mode === 'none') plans.answer({ requestId: request.requestId, approved: false, source: 'cli --approve none' });
    else if (!io.input.isTTY)
      plans.answer({
        requestId: request.requestId,
        approved: false,
        source: 'cli no-tty',
        feedback:
          request.kind === 'replan'
            ? 'no terminal to approve steps that need more than the approved plan'
            : 'no terminal to ask for approval of the plan (use --approve plan)',
      });
    else queue = queue.then(() => askPlan(request)).catch(() => undefined);
  });
  return () => {
    stopCalls();
    stopPlans();
  };
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
