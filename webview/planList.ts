import type { PlanState, StepState } from '../src/core/plan/planTypes';
import { approvalLabel, callLabel } from './approvalText';
import { stepFailureSentence } from '../src/core/plan/failureText';
import { oneLine } from './format';
import { CALL_STATUS_LABEL, type StepView } from './stepView';
import { canRetryInNewRun, carriedOverText, RETRY_STEP_HINT } from './stepRetry';

export { RETRY_STEP_HINT };

// The list view's model of one step: its text, status, what it is doing now (the current tool call,
// named by its command or file), and how it ended (the verifier's verdict, or the failure in a
// sentence). Pure, so the wording is unit-tested in Node.

/** Steps above which the list is the default view (a bigger graph is hard to read at the panel's size). */
export const LIST_DEFAULT_STEPS = 8;
/** Panel width (CSS px) below which the list is the default view, and graph and details stack. */
export const NARROW_WIDTH = 760;

export interface PlanRow {
  id: string;
  description: string;
  /** What it does now or how it ended, one line; '' when there is nothing to say. */
  activity: string;
  /** 'fail' for a failure sentence, 'wait' for an approval, 'ok' for a passed verdict. */
  tone: 'fail' | 'wait' | 'ok' | 'plain';
  /** The step's warnings (log events at warn or error that name it). */
  warnings: string[];
  /** A failed or blocked step of a finished run: Retry step runs it again in a new run. */
  retryable: boolean;
}

/** The model of one row. */
export function planRow(state: PlanState, step: StepState, view: StepView): PlanRow {
  const warnings = (state.notices ?? []).filter((n) => n.stepId === step.id).map((n) => n.message);
  const base = { id: step.id, description: step.description, warnings, retryable: view.retry === 'none' && canRetryInNewRun(state, step) };
  if (view.approvals.length > 0) {
    const labels = view.approvals.map((a) => approvalLabel(a.approval));
    return { ...base, activity: `Waiting for your approval: ${labels.join(', ')}`, tone: 'wait' };
  }
  const sentence = stepFailureSentence(state, step);
  if (sentence) return { ...base, activity: sentence, tone: 'fail' };
  if (step.status === 'in_progress') {
    const last = step.toolCalls[step.toolCalls.length - 1];
    if (!last) return { ...base, activity: 'Asking the model…', tone: 'plain' };
    const verb = last.status === 'pending' ? 'Running' : `Last call (${CALL_STATUS_LABEL[last.status]})`;
    return { ...base, activity: `${verb}: ${oneLine(callLabel(last), 160)}`, tone: 'plain' };
  }
  // A step a retry took over from its earlier run says so: it did not run in this one.
  const carried = carriedOverText(step) ? 'Carried over from the earlier run, not run again. ' : '';
  if (step.status === 'completed' && step.verdict) {
    return { ...base, activity: `${carried}Verified${step.verdict.reason ? `: ${oneLine(step.verdict.reason, 200)}` : ''}`, tone: 'ok' };
  }
  if (carried) return { ...base, activity: carried.trim(), tone: 'plain' };
  return { ...base, activity: '', tone: 'plain' };
}
