import { CONTEXT_EXHAUSTED, ContextExhaustedError } from '../context/contextExhausted';
import type { NewRunEvent } from '../plan/events';
import { endStepEvents, type StepEndInput } from '../plan/planOperations';
import type { PlanState, StepState, Verdict } from '../plan/planTypes';
import { BUDGET_EXCEEDED } from '../usage/runCaps';
import type { StepOutcome } from './stepExecutor';
import { proveStep, verifyStep, type StepProof } from './verifier';

// How a step ends (docs/design.md, “The verifier and how a step ends”): the one place that turns the end of a step's execution
// into its output, verdict and status. The scheduler appends what `stepEndEvents` returns.

/** How a step's execution ended, as the scheduler saw it. */
export type StepEnd =
  /** The tool loop returned: answered, or stopped by a limit, a denied gate, a run cap. */
  | { kind: 'loop'; outcome: StepOutcome }
  /** The loop threw an error that does not end the run (a non-fatal LLM error, an exhausted context). */
  | { kind: 'error'; error: unknown }
  | { kind: 'cancelled' }
  /** An LLM error that ends the run (docs/design.md, “LLM requests: retries and failover”). */
  | { kind: 'fatal'; message: string };

/**
 * End reasons that mean the step's work did not finish, even when every call got a result: the
 * loop was cut off (limits, repeats), every call failed (docs/design.md, “Limits”), the model errored,
 * the prompt no longer fit its context window (docs/design.md, “Context budget and memory”) or the run reached a cap (docs/design.md, “Usage and cost”). Such steps
 * fail like a verification failure, so the replanner gets a chance to redesign them.
 */
const UNFINISHED_END_REASONS = new Set<string>([
  'max_steps_exceeded',
  'all_tool_calls_failed',
  'repeated_tool_call',
  'llm_error',
  CONTEXT_EXHAUSTED,
  BUDGET_EXCEEDED,
]);

const APPROVAL_DENIED_VERDICT: Verdict = {
  passed: false,
  reason: 'A required approval was denied; the step is blocked until it is retried.',
  failedCallIds: [],
  verdict: 'failed',
};

/**
 * The verifier's verdict, made to fail as well when the step ended unfinished. With `proof` (the
 * loop answered) the declared checks and the answer's claims are judged too.
 */
function judgeStep(step: StepState, endReason: string | undefined, proof: StepProof | undefined): { verdict: Verdict; failure?: string } {
  if (proof && !endReason) return proveStep(step, endReason, proof);
  const verdict = verifyStep(step, endReason);
  if (verdict.passed && endReason && UNFINISHED_END_REASONS.has(endReason)) return { verdict: { ...verdict, passed: false, verdict: 'failed' } };
  return { verdict: { ...verdict, verdict: verdict.passed ? 'unverified' : 'failed' } };
}

/** What the step's output says when the loop threw instead of returning. */
function outcomeOfError(error: unknown): StepOutcome {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof ContextExhaustedError) return { output: `The step stopped: ${message}`, endReason: CONTEXT_EXHAUSTED };
  return { output: `The step stopped on an error: ${message}`, endReason: 'llm_error' };
}

/** The step's fate: output, verdict, status and reason (the table of docs/design.md, “The verifier and how a step ends”). */
function decideStepEnd(step: StepState, end: StepEnd, proof: StepProof | undefined): StepEndInput {
  if (end.kind === 'cancelled') return { status: 'failed', reason: 'cancelled' };
  if (end.kind === 'fatal') return { status: 'failed', reason: `llm_error: ${end.message}` };
  const { output, endReason } = end.kind === 'error' ? outcomeOfError(end.error) : end.outcome;
  // A denied required gate blocks the step (the CLI; the extension waits for Retry instead).
  if (endReason === 'approval_denied') return { output, verdict: APPROVAL_DENIED_VERDICT, status: 'blocked', reason: endReason };
  const unfinished = endReason === 'answered' ? undefined : endReason;
  const { verdict, failure } = judgeStep(step, unfinished, proof);
  if (verdict.passed) return { output, verdict, status: 'completed' };
  return { output, verdict, status: 'failed', reason: unfinished ?? failure ?? 'verification_failed' };
}

/**
 * The events that end step `stepId`, and whether its failure may be replanned: a failed step may,
 * unless it was cancelled, stopped by a fatal error or by a run cap; a completed or blocked one
 * may not.
 */
export function stepEndEvents(state: PlanState, stepId: string, end: StepEnd, proof?: StepProof): { events: NewRunEvent[]; replannable: boolean } {
  const step = state.steps.get(stepId);
  // An unknown step has no calls to judge; endStepEvents refuses it with a clear message.
  const decision = step ? decideStepEnd(step, end, proof) : { status: 'failed' as const };
  const events = endStepEvents(state, stepId, decision);
  return { events, replannable: decision.status === 'failed' && (end.kind === 'loop' || end.kind === 'error') && decision.reason !== BUDGET_EXCEEDED };
}
