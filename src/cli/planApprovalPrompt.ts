import type { PlanApprovalState } from '../core/plan/planApprovalSchema';
import { describeCheck } from '../core/plan/stepChecks';
import { describeScope } from '../core/plan/stepScope';
import { terminalSafe } from '../core/text/terminalSafe';

/**
 * The terminal's question for a plan approval: every proposed step with its scope and checks, and
 * for a replan what it needs beyond the approved plan. Model text in it is made terminal-safe.
 */
export function planApprovalPrompt(request: PlanApprovalState): string {
  const lines = [
    '',
    request.kind === 'plan'
      ? `[cortex] Approve the plan${request.title ? ` "${request.title}"` : ''} (${request.steps.length} step${request.steps.length === 1 ? '' : 's'}):`
      : `[cortex] The redesign of ${request.failedStepId ?? 'a step'} needs more than the approved plan:`,
  ];
  request.steps.forEach((step, i) => {
    const after = step.dependsOn.length ? ` (after ${step.dependsOn.map((d) => d + 1).join(', ')})` : '';
    lines.push(`  ${i + 1}. ${step.description}${after}`);
    lines.push(`     scope: ${describeScope(step.scope)}`);
    if (step.expects?.length) lines.push(`     checks: ${step.expects.map(describeCheck).join('; ')}`);
    const widening = request.widening?.find((w) => w.index === i);
    if (widening) lines.push(`     NEW: ${[...widening.write.map((g) => `write ${g}`), ...widening.commands.map((c) => `run \`${c}\``)].join(', ')}`);
  });
  lines.push('  Approve? [y/N, or type what to change] ');
  return lines.map((line) => terminalSafe(line)).join('\n');
}
