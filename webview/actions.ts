import type { ApprovalRequestMessage, WebviewToHost } from '../src/protocol/messages';
import type { EndpointFix } from './endpointFixes';
import type { PlanStore } from './store';
import { canRetryInNewRun } from './stepRetry';

// Builds the webview → host messages for user actions. Each returns undefined when the action was
// already sent (double click, second "Approve all"), so one click never posts twice.

export const MAX_FEEDBACK_CHARS = 4000;

export type AnswerMessage = Extract<WebviewToHost, { type: 'approval/answer' }>;

/** approval/answer for one pending request, with the `replyTo` nonce the host's reply will quote. */
export function approvalAnswer(
  store: PlanStore,
  approval: ApprovalRequestMessage,
  decision: 'approve' | 'deny',
  feedback?: string,
  scope?: 'run' | 'workspace',
): AnswerMessage | undefined {
  if (!store.runId) return undefined;
  const replyTo = store.markAnswered(approval.requestId, decision);
  if (!replyTo) return undefined;
  const message: AnswerMessage = {
    type: 'approval/answer',
    runId: store.runId,
    requestId: approval.requestId,
    callId: approval.callId,
    argsHash: approval.argsHash,
    decision,
    replyTo,
  };
  const text = feedback?.trim();
  if (decision === 'deny' && text) message.feedback = text.slice(0, MAX_FEEDBACK_CHARS);
  if (decision === 'approve' && scope) message.scope = scope;
  return message;
}

/** One answer per approval that is still open ("Approve all (N)" / "Deny all"). */
export function answerAll(store: PlanStore, decision: 'approve' | 'deny'): AnswerMessage[] {
  const out: AnswerMessage[] = [];
  for (const approval of store.openApprovals()) {
    const message = approvalAnswer(store, approval, decision);
    if (message) out.push(message);
  }
  return out;
}

export type PlanAnswerMessage = Extract<WebviewToHost, { type: 'plan/answer' }>;

/** plan/answer for the pending plan approval (docs/design.md, “Step scopes and plan approval”); undefined when already sent. */
export function planAnswer(store: PlanStore, requestId: string, approved: boolean, feedback?: string): PlanAnswerMessage | undefined {
  if (!store.runId) return undefined;
  const replyTo = store.markPlanAnswered(requestId, approved);
  if (!replyTo) return undefined;
  const message: PlanAnswerMessage = { type: 'plan/answer', runId: store.runId, requestId, approved, replyTo };
  const text = feedback?.trim();
  if (!approved && text) message.feedback = text.slice(0, MAX_FEEDBACK_CHARS);
  return message;
}

export function cancelRun(store: PlanStore): WebviewToHost | undefined {
  if (!store.runId || store.state.status !== 'running' || !store.markCancelRequested()) return undefined;
  return { type: 'run/cancel', runId: store.runId };
}

/** run/resume for an interrupted run the host said it can resume; once. */
export function resumeRun(store: PlanStore): WebviewToHost | undefined {
  if (!store.runId || store.live || !store.markResumeRequested()) return undefined;
  return { type: 'run/resume', runId: store.runId };
}

export function retryStep(store: PlanStore, stepId: string): WebviewToHost | undefined {
  if (!store.runId || !store.markRetried(stepId)) return undefined;
  return { type: 'step/retry', runId: store.runId, stepId };
}

/** run/retryStep: a failed or blocked step of a finished run, run again in a new run (docs/design.md, “Retrying a step”). */
export function retryStepInNewRun(store: PlanStore, stepId: string): WebviewToHost | undefined {
  const step = store.state.steps.get(stepId);
  if (!store.runId || !step || !canRetryInNewRun(store.state, step)) return undefined;
  return { type: 'run/retryStep', runId: store.runId, stepId };
}

/** The message behind an endpoint-error button: the host runs Set API key, opens the settings, or retries the run. */
export function endpointFixMessage(store: PlanStore, fix: EndpointFix): WebviewToHost | undefined {
  if (fix === 'setApiKey') return { type: 'endpoint/setApiKey' };
  if (fix === 'openSettings') return { type: 'endpoint/openSettings' };
  return store.runId ? { type: 'run/retry', runId: store.runId } : undefined;
}
