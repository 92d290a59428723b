import type { CheckRecord } from '../plan/events';
import type { StepState, ToolCallRecord, Verdict } from '../plan/planTypes';
import { modelCalls } from '../verify/stepEvidence';

// Deterministic verifier (docs/design.md, “The verifier and how a step ends”): no LLM, only the step's own call record. A call that
// was requested but never answered (`pending`, or still `awaiting_approval`) means the model
// claimed work that did not happen, so the step fails. Answered calls pass, whatever they said;
// the end reason (all_tool_calls_failed, max_steps_exceeded, ...; docs/design.md, “Limits”) is written into
// the verdict's reason so a person sees why the step ended as it did.

/** The Verifier's verdict: the same shape the `step_verified` event and StepState carry. */
export type VerifierVerdict = Verdict;

/** Calls that never got a result: the ones that fail a step. */
export function getFailedCalls(step: StepState): ToolCallRecord[] {
  return modelCalls(step).filter((call) => call.status === 'pending' || call.status === 'awaiting_approval');
}

/** True when the step made calls and every one of them came back as an error or a refusal. */
export function allCallsFailed(step: StepState): boolean {
  // A command that ran and exited non-zero is evidence, not a failed call.
  const calls = modelCalls(step);
  return calls.length > 0 && calls.every((call) => (call.status === 'error' && call.exitCode === undefined) || call.status === 'rejected');
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
  const total = modelCalls(step).length;
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

/** What the verifier found beyond the calls: the declared checks and the answer's claims. */
export interface StepProof {
  postconditions: CheckRecord[];
  claims: CheckRecord[];
  /** `--require-verified` / cortex.verify.requireVerified: an unverified step fails (no_evidence). */
  requireVerified: boolean;
}

/** Why a step whose calls all got a result still failed its proof; the step's end reason. */
export type ProofFailure = 'postcondition_failed' | 'unbacked_claim' | 'no_evidence';

function othersFailing(records: readonly CheckRecord[]): string {
  const count = records.filter((r) => !r.passed).length - 1;
  return count > 0 ? ` (and ${count} more failed check${count === 1 ? '' : 's'})` : '';
}

/**
 * The verdict in the order docs/design.md, “The verifier and how a step ends”, gives: unanswered
 * calls, then the declared postconditions, then the answer's claims; a step where nothing was
 * declared and nothing claimed is `unverified` (failed as no_evidence when verification is
 * required, unless the plan waived evidence with `expects: []`).
 */
export function proveStep(step: StepState, endReason: string | undefined, proof: StepProof): { verdict: VerifierVerdict; failure?: ProofFailure } {
  const calls = verifyStep(step, endReason);
  const pending: CheckRecord[] = calls.failedCallIds.length
    ? [{ kind: 'pending_calls', check: 'every tool call got a result', passed: false, detail: calls.reason, evidence: { callId: calls.failedCallIds[0] } }]
    : [];
  const checks = [...pending, ...proof.postconditions, ...proof.claims];
  if (!calls.passed) return { verdict: { ...calls, verdict: 'failed', checks } };
  const failedCheck = proof.postconditions.find((record) => !record.passed);
  if (failedCheck) {
    const reason = `postcondition_failed: ${failedCheck.check}: ${failedCheck.detail}${othersFailing(checks)}`;
    return { verdict: { passed: false, reason, failedCallIds: [], verdict: 'failed', checks }, failure: 'postcondition_failed' };
  }
  const unbacked = proof.claims.find((record) => !record.passed);
  if (unbacked) {
    const reason = `unbacked_claim: "${unbacked.check}": ${unbacked.detail}${othersFailing(checks)}`;
    return { verdict: { passed: false, reason, failedCallIds: [], verdict: 'failed', checks }, failure: 'unbacked_claim' };
  }
  const callsText = modelCalls(step).length > 0 ? `; ${calls.reason}` : '';
  if (checks.length > 0) {
    const reason = `${plural(checks.length, 'check')} held${callsText}`;
    return { verdict: { passed: true, reason, failedCallIds: [], verdict: 'verified', checks } };
  }
  if (step.expects?.length === 0)
    return {
      verdict: {
        passed: true,
        reason: `unverified: the plan declared that this step needs no evidence${callsText}`,
        failedCallIds: [],
        verdict: 'unverified',
        checks,
      },
    };
  if (proof.requireVerified) {
    const reason = 'no_evidence: the step declared no checks and its answer claims nothing to check, and verification is required (--require-verified)';
    return { verdict: { passed: false, reason, failedCallIds: [], verdict: 'failed', checks }, failure: 'no_evidence' };
  }
  return {
    verdict: { passed: true, reason: `unverified: no checks declared and no claim to check${callsText}`, failedCallIds: [], verdict: 'unverified', checks },
  };
}
