import type { EventOf } from './events';
import type { RememberOffer } from './rememberedApproval';
import type { ApprovalInfo, PlanState, StepState, ToolCallRecord } from './planTypes';

// Approvals as the plan state knows them (docs/design.md, “Approvals”): the reducer folds the lifecycle
// events here, and everyone who asks "what waits for a person?" (the broker, the panel, the status
// bar, the CLI) reads the answer from the same state instead of keeping a list of its own.

/** A request still waiting for an answer, with what would run if it is approved. */
export interface PendingApproval {
  requestId: string;
  stepId: string;
  callId: string;
  toolName: string;
  /** Exactly the argument JSON that will run if approved. */
  argumentsJson: string;
  argsHash: string;
  required: boolean;
  denyEffect: 'continue' | 'block';
  reason: string;
  /** For a write or an edit: the diff it would make (docs/design.md, “Checkpoints and revert”). */
  diff?: string;
  /** What "Approve for this run" would remember, when the call may be remembered (docs/design.md, “Remembered approvals”). */
  remember?: RememberOffer;
}

type ApprovalEvent = EventOf<'tool_call_awaiting_approval'> | EventOf<'approval_answered'> | EventOf<'approval_withdrawn'>;

/** Folds one approval lifecycle event into the call it belongs to; unknown calls and requests are ignored. */
export function foldApprovalEvent(state: PlanState, event: ApprovalEvent): void {
  const call = findCall(state.steps.get(event.stepId), event.callId);
  if (!call) return;
  if (event.type === 'tool_call_awaiting_approval') {
    if (call.approval?.requestId === event.approval.requestId) return;
    if (call.approval) (call.earlierApprovals ??= []).push(call.approval);
    call.status = 'awaiting_approval';
    call.approval = { ...event.approval, state: 'pending', askedAt: event.time };
    return;
  }
  const approval = requestOf(call, event.requestId);
  if (approval?.state !== 'pending') return;
  if (event.type === 'approval_answered') {
    approval.state = event.decision === 'approve' ? 'approved' : 'denied';
    if (event.feedback !== undefined) approval.feedback = event.feedback;
    if (event.source !== undefined) approval.answeredBy = event.source;
    if (event.scope !== undefined) approval.scope = event.scope;
    if (event.remembered !== undefined) approval.remembered = event.remembered;
  } else {
    approval.state = 'withdrawn';
    approval.withdrawnBecause = event.reason;
  }
}

/**
 * Every request still waiting, oldest first. A call that already has a result waits for nothing,
 * whatever its approval says (a trace written before answers were recorded).
 */
export function pendingApprovals(state: PlanState): PendingApproval[] {
  const found: Array<{ pending: PendingApproval; askedAt: number }> = [];
  for (const stepId of state.stepOrder) {
    const step = state.steps.get(stepId);
    for (const call of step?.toolCalls ?? []) {
      const approval = call.approval;
      if (approval?.state === 'pending' && call.status === 'awaiting_approval')
        found.push({ pending: toPending(stepId, call, approval), askedAt: approval.askedAt ?? 0 });
    }
  }
  // Array.prototype.sort is stable: requests of the same moment keep plan order.
  return found.sort((a, b) => a.askedAt - b.askedAt).map((entry) => entry.pending);
}

/** The request with this id wherever it is (a live or replaced step, current or earlier), or undefined. */
export function findApproval(state: PlanState, requestId: string): { step: StepState; call: ToolCallRecord; approval: ApprovalInfo } | undefined {
  for (const steps of [state.steps, state.replacedSteps]) {
    for (const step of steps.values()) {
      for (const call of step.toolCalls) {
        const approval = requestOf(call, requestId);
        if (approval) return { step, call, approval };
      }
    }
  }
  return undefined;
}

/** The pending request in the shape the answering sides use. */
export function toPending(stepId: string, call: ToolCallRecord, approval: ApprovalInfo): PendingApproval {
  return {
    requestId: approval.requestId,
    stepId,
    callId: call.id,
    toolName: call.name,
    argumentsJson: call.arguments,
    argsHash: approval.argsHash,
    required: approval.required,
    denyEffect: approval.denyEffect,
    reason: approval.reason,
    ...(approval.diff !== undefined ? { diff: approval.diff } : {}),
    ...(approval.remember !== undefined ? { remember: approval.remember } : {}),
  };
}

function requestOf(call: ToolCallRecord, requestId: string): ApprovalInfo | undefined {
  if (call.approval?.requestId === requestId) return call.approval;
  return call.earlierApprovals?.find((approval) => approval.requestId === requestId);
}

function findCall(step: StepState | undefined, callId: string): ToolCallRecord | undefined {
  if (!step) return undefined;
  for (let i = step.toolCalls.length - 1; i >= 0; i--) if (step.toolCalls[i].id === callId) return step.toolCalls[i];
  return undefined;
}
