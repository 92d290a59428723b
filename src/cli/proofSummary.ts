import type { PlanSnapshot, StepSnapshot } from '../core/plan/events';

/** How a step's proof ended: its verdict, or failed when it failed without one. */
function proofOf(step: StepSnapshot): 'verified' | 'unverified' | 'failed' | undefined {
  const verdict = step.verdict;
  if (!verdict) return step.status === 'failed' ? 'failed' : undefined;
  if (!verdict.passed) return 'failed';
  return verdict.verdict === 'verified' ? 'verified' : 'unverified';
}

/**
 * The CLI's proof line (docs/design.md, “The verifier and how a step ends”): how many steps that
 * ran were verified, unverified or failed, replaced steps included, e.g. `proof: 8 verified, 1
 * unverified, 1 failed`.
 */
export function proofSummaryLine(snapshot: PlanSnapshot): string {
  const counts = { verified: 0, unverified: 0, failed: 0 };
  for (const step of [...snapshot.steps, ...snapshot.replacedSteps]) {
    const proof = proofOf(step);
    if (proof) counts[proof]++;
  }
  return `proof: ${counts.verified} verified, ${counts.unverified} unverified, ${counts.failed} failed`;
}
