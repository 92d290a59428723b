import type { StepState, Verdict } from '../plan/planTypes';
import { verifyStep } from './verifier';

/**
 * End reasons that mean the step's work did not finish, even when every call got a result: the
 * loop was cut off (limits, repeats), every call failed (docs/design.md §11), or the model errored.
 * Such steps fail like a verification failure, so the replanner gets a chance to redesign them.
 */
export const UNFINISHED_END_REASONS = new Set(['max_steps_exceeded', 'all_tool_calls_failed', 'repeated_tool_call', 'llm_error']);

/** The verifier's verdict (docs/design.md §14), made to fail as well when the step ended unfinished. */
export function judgeStep(step: StepState, endReason?: string): Verdict {
  const verdict = verifyStep(step, endReason);
  if (verdict.passed && endReason && UNFINISHED_END_REASONS.has(endReason)) return { ...verdict, passed: false };
  return verdict;
}
