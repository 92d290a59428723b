import { oneLine } from '../text/clip';
import type { PlanState, StepState, ToolCallRecord } from './planTypes';

// Failures in sentences: what happened to a step, and to the run, in words and with step
// descriptions instead of ids and reason codes. The codes stay available under the panel's
// "Technical details" and in the trace. Pure text, shared by the panel, the host's notification
// and the CLI, so all three say the same thing.

/** How long a step's description may be inside a sentence. */
const DESCRIPTION_CHARS = 90;
/** Steps a run summary names before "and N more". */
const SUMMARY_STEPS = 3;

/** Reason codes (a step's end reason) in words: what happened, not which branch of the code saw it. */
const REASON_WORDS: Record<string, string> = {
  approval_denied: 'a required approval was denied',
  upstream_blocked: 'a step it depends on did not complete',
  replan_limit_reached: 'the replanner gave up',
  replan_gave_up: 'the replanner gave up',
  max_steps_exceeded: 'it used all its tool-call rounds without finishing',
  all_tool_calls_failed: 'every tool call it made failed',
  repeated_tool_call: 'the model kept repeating the same tool call',
  llm_error: 'the model endpoint returned an error',
  verification_failed: 'the verifier did not accept its result',
  policy_denied: 'the policy refused one of its tool calls',
  invalid_arguments: "the model's tool arguments were invalid",
  tool_failed: 'a tool call failed',
  cancelled: 'the run was cancelled',
};

/** A reason code in words ("llm_error: …" keeps the endpoint's message). */
export function reasonInWords(reason: string): string {
  if (REASON_WORDS[reason]) return REASON_WORDS[reason];
  const llm = /^llm_error:\s*(.+)$/s.exec(reason);
  if (llm) return `the model endpoint failed: ${oneLine(llm[1], 200)}`;
  return reason.replace(/[_-]+/g, ' ').trim();
}

/** The step's description, short enough for a sentence. */
export function stepName(step: Pick<StepState, 'description' | 'id'>): string {
  return oneLine(step.description, DESCRIPTION_CHARS) || step.id;
}

function findStep(state: PlanState, id: string): StepState | undefined {
  return state.steps.get(id) ?? state.replacedSteps.get(id);
}

/** End reasons that say what the replanner did, not why the step failed. */
const REPLANNER_ENDS = new Set(['replan_limit_reached', 'replan_gave_up']);

/** What a cut-off call was writing: its file or command (read from the partial arguments), else its tool. */
function cutOffTarget(call: ToolCallRecord): string {
  const found = /"(?:path|command)"\s*:\s*"((?:[^"\\]|\\.){1,120})"/.exec(call.rawArguments || call.arguments);
  return found ? found[1] : `its ${call.name || call.requestedName} call`;
}

/**
 * Why the step itself failed. A reply cut off at the token limit is the cause when it happened (the
 * verifier only sees the call that never got a result); else the verifier's reason without call
 * ids; else the end reason in words.
 */
function ownCause(step: StepState): string {
  const cut = step.toolCalls.filter((c) => c.finishReason === 'length' || !c.isComplete);
  if (cut.length > 0) {
    const times = cut.length === 1 ? '' : cut.length === 2 ? ' twice' : ` ${cut.length} times`;
    return `the model's reply was cut off${times} while writing ${cutOffTarget(cut[cut.length - 1])}`;
  }
  if (step.verdict && !step.verdict.passed && step.verdict.reason) return lowerFirst(codesInWords(withoutCallIds(step.verdict.reason)).replace(/[\s.]+$/, ''));
  if (step.endReason && !REPLANNER_ENDS.has(step.endReason)) return reasonInWords(step.endReason);
  return '';
}

/** "write_file (call_17_0, pending)" → "write_file (pending)": ids mean nothing to a reader (they stay under "Technical details"). */
export function withoutCallIds(text: string): string {
  return text.replace(/\((?:call|toolu|fc)[_-][\w-]+,\s*/g, '(').replace(/\s*\((?:call|toolu|fc)[_-][\w-]+\)/g, '');
}

/** "…ended because llm_error" → "…ended because the model endpoint returned an error"; "(all_tool_calls_failed)" dropped. */
function codesInWords(text: string): string {
  return text
    .replace(/\bbecause ([a-z]+(?:_[a-z]+)+)(?=$|[;.,])/g, (_all, code: string) => `because ${reasonInWords(code)}`)
    .replace(/ \([a-z]+(?:_[a-z]+)+\)/g, '');
}

function lowerFirst(text: string): string {
  // "A required…" and "Write…" start a clause; "API key…" stays as written.
  return /^[A-Z](?![A-Z0-9])/.test(text) ? text[0].toLowerCase() + text.slice(1) : text;
}

/**
 * One sentence for a failed or blocked step ("Write release.txt was blocked: the model's reply was
 * cut off; the replanner gave up."); '' for any other status.
 */
export function stepFailureSentence(state: PlanState, step: StepState): string {
  if (step.status !== 'failed' && step.status !== 'blocked') return '';
  const name = stepName(step);
  if (step.status === 'blocked' && step.blockedBy && step.blockedBy !== step.id) {
    const blocker = findStep(state, step.blockedBy);
    const what = blocker ? stepName(blocker) : step.blockedBy;
    const how = blocker?.status === 'failed' ? 'failed' : blocker?.status === 'blocked' ? 'was blocked' : 'did not complete';
    return `${name} did not run: it needs ${what}, which ${how}.`;
  }
  const verb = step.status === 'failed' ? 'failed' : 'was blocked';
  const cause = ownCause(step);
  const gaveUp = REPLANNER_ENDS.has(step.endReason ?? '') || gaveUpOn(state, step);
  const parts = [cause, gaveUp ? 'the replanner gave up' : ''].filter(Boolean);
  return parts.length ? `${name} ${verb}: ${parts.join('; ')}.` : `${name} ${verb}.`;
}

/** True when the replanner's last word on this step was to give up. */
function gaveUpOn(state: PlanState, step: StepState): boolean {
  for (let i = state.replans.length - 1; i >= 0; i--) {
    const record = state.replans[i];
    if (record.failedStepId === step.id) return record.action === 'give_up';
  }
  return false;
}

/**
 * The run's outcome in words, naming the steps that did not complete by their descriptions:
 * the steps that failed on their own first, then those that waited on them.
 */
export function runFailureSummary(state: PlanState): string {
  const steps = state.stepOrder.map((id) => state.steps.get(id)).filter((s): s is StepState => s !== undefined);
  const bad = steps.filter((s) => s.status === 'failed' || s.status === 'blocked');
  if (bad.length === 0) return '';
  const root = bad.filter((s) => !s.blockedBy || s.blockedBy === s.id);
  const downstream = bad.filter((s) => s.blockedBy && s.blockedBy !== s.id);
  const sentences = root.slice(0, SUMMARY_STEPS).map((s) => stepFailureSentence(state, s));
  const left = root.length - Math.min(root.length, SUMMARY_STEPS);
  if (left > 0) sentences.push(`${left} more step${left === 1 ? '' : 's'} failed.`);
  if (downstream.length > 0) {
    const names = downstream.slice(0, SUMMARY_STEPS).map(stepName);
    const more = downstream.length - names.length;
    sentences.push(
      `${downstream.length === 1 ? 'One step' : `${downstream.length} steps`} after ${root.length === 1 ? 'it' : 'them'} did not run: ${names.join('; ')}${more > 0 ? `; and ${more} more` : ''}.`,
    );
  }
  return `${bad.length} of ${steps.length} steps did not complete. ${sentences.join(' ')}`;
}
