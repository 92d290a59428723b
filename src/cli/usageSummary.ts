import type { PlanSnapshot } from '../core/plan/events';
import { formatTokenCount, usageText } from '../core/usage/formatUsage';

/**
 * The CLI's last progress line (docs/design.md, “Usage and cost”): the run's tokens and cost, then each step's
 * tokens, e.g. `usage: 12k tokens (11k in, 1.3k out), $0.012 — s1 4.1k, s2 8.2k`. Counts the
 * tokenizer made because the endpoint reported none are marked with ~ and "(estimated)".
 */
export function usageSummaryLine(snapshot: PlanSnapshot): string {
  const steps = [...snapshot.steps, ...snapshot.replacedSteps]
    .filter((step) => step.usage)
    .map(
      (step) =>
        `${step.id}${step.replacedBy ? ' (replaced)' : ''} ${step.usage!.estimated ? '~' : ''}${formatTokenCount(step.usage!.promptTokens + step.usage!.completionTokens)}`,
    );
  return `usage: ${usageText(snapshot.usage)}${steps.length > 0 ? ` — ${steps.join(', ')}` : ''}`;
}
