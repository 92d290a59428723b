import type { StepState, ToolCallRecord, Verdict } from '../plan/planTypes';

// Deterministic verifier (docs/design.md, “The verifier and how a step ends”): no LLM, only the step's own call record. A call that
// was requested but never answered (`pending`, or still `awaiting_approval`) means the model
// claimed work that did not happen, so the step fails. Answered calls pass, whatever they said;
// the end reason (all_tool_calls_failed, max_steps_exceeded, ...; docs/design.md, “Limits”) is written into
// the verdict's reason so a person sees why the step ended as it did.

/** The Verifier's verdict: the same shape the `step_verified` event and StepState carry. */
export type VerifierVerdict = Verdict;

/** Calls that never got a result: the ones that fail a step. */
export function getFailedCalls(step: StepState): ToolCallRecord[] {
  return step.toolCalls.filter((call) => call.status === 'pending' || call.status === 'awaiting_approval');
}

/** True when the step made calls and every one of them came back as an error or a refusal. */
export function allCallsFailed(step: StepState): boolean {
  return step.toolCalls.length > 0 && step.toolCalls.every((call) => call.status === 'error' || call.status === 'rejected');
}

const END_REASONS: Record<string, string> = {
  max_steps_exceeded: 'the tool loop hit its step limit (max_steps_exceeded)',
  all_tool_calls_failed: 'every tool call failed (all_tool_calls_failed)',
  approval_denied: 'a required approval was denied (approval_denied)',
};

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** Verifies a step: no calls → pass; any unanswered call → fail (listed); all answered → pass. */
export function verifyStep(step: StepState, endReason?: string): VerifierVerdict {
  const failed = getFailedCalls(step);
  const total = step.toolCalls.length;
  let reason: string;
  if (total === 0) {
    reason = 'no tool calls to verify';
  } else if (failed.length > 0) {
    const listed = failed.map((call) => `${call.name} (${call.id}, ${call.status})`).join(', ');
    reason = `${failed.length} of ${plural(total, 'tool call')} never got a result: ${listed}`;
  } else {
    reason = total === 1 ? 'the tool call got a result' : `all ${total} tool calls got a result`;
    const reused = step.toolCalls.filter((call) => call.reusedFrom !== undefined);
    if (reused.length > 0)
      reason += ` (${reused.length} of them did not run and reuse the result of an identical call: ${reused.map((call) => `${call.id} reuses ${call.reusedFrom}`).join(', ')})`;
    if (allCallsFailed(step) && endReason !== 'all_tool_calls_failed') reason += `, but ${total === 1 ? 'it' : 'every one'} failed`;
  }
  if (endReason) reason += `; the step ended because ${END_REASONS[endReason] ?? endReason}`;
  return { passed: failed.length === 0, reason, failedCallIds: failed.map((call) => call.id) };
}
