import type { PlanApprovalState } from '../core/plan/planApprovalSchema';
import type { PlanApprovalBroker } from '../core/policy/planApprovalBroker';
import { planApprovalPrompt } from './planApprovalPrompt';
import { terminalQuestions, type TerminalQuestions } from './terminalQuestions';

/**
 * Answers plan approvals in the terminal (docs/design.md, “Step scopes and plan approval”):
 * `--approve plan` approves the plan itself, never a replan that needs more than it (asked as
 * without a flag); `--approve all` approves and `--approve none` denies everything; without a flag
 * a TTY is shown the plan (y approves, n denies, other words deny with that feedback for a new
 * plan), and without a TTY it is denied. Call approvals are answered by attachCliApprovals.
 */
export function attachCliPlanApprovals(
  plans: PlanApprovalBroker,
  mode: 'all' | 'none' | 'plan' | undefined,
  io: { input: NodeJS.ReadableStream & { isTTY?: boolean }; output: NodeJS.WritableStream },
  questions: TerminalQuestions = terminalQuestions(io),
): () => void {
  const seen = new Set<string>();
  const ask = async (request: PlanApprovalState) => {
    const reply = await questions.ask(
      () => planApprovalPrompt(request),
      () => plans.pending()?.requestId === request.requestId,
    );
    if (reply === undefined) return;
    const approved = /^y(es)?$/i.test(reply);
    const feedback = approved || /^(n|no)?$/i.test(reply) ? undefined : reply;
    plans.answer({ requestId: request.requestId, approved, feedback, source: 'cli-tty' });
  };
  return plans.onDidChange((request) => {
    if (!request || seen.has(request.requestId)) return;
    seen.add(request.requestId);
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
    else void ask(request).catch(() => undefined);
  });
}
