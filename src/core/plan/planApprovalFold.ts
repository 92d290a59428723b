import type { EventOf } from './events';
import type { PlanApprovalState } from './planApprovalSchema';
import type { PlanState } from './planTypes';

// How plan approval events fold into the plan (docs/design.md, “Step scopes and plan approval”).
// Never throws: an answer to an unknown or already answered request changes nothing.

export function foldPlanApprovalRequested(state: PlanState, event: EventOf<'plan_approval_requested'>): void {
  const list = (state.planApprovals ??= []);
  if (list.some((request) => request.requestId === event.requestId)) return;
  // One request waits at a time: one left open by an interrupted run is replaced by the new one.
  for (const request of list) if (request.state === 'pending') request.state = 'withdrawn';
  const { type: _type, seq: _seq, time, ...fields } = event;
  list.push({ ...fields, steps: fields.steps.map((step) => ({ ...step })), state: 'pending', askedAt: time });
}

export function foldPlanApprovalAnswered(state: PlanState, event: EventOf<'plan_approval_answered'>): void {
  const request = state.planApprovals?.find((item) => item.requestId === event.requestId);
  if (!request || request.state !== 'pending') return;
  request.state = event.approved ? 'approved' : 'denied';
  if (event.feedback !== undefined) request.feedback = event.feedback;
  if (event.source !== undefined) request.answeredBy = event.source;
}

/** True once a person approved the run's plan: from then on, step scopes decide what runs unasked. */
export function planIsApproved(state: Pick<PlanState, 'planApprovals'>): boolean {
  return state.planApprovals?.some((request) => request.kind === 'plan' && request.state === 'approved') ?? false;
}

/** The plan approval waiting for an answer, if any. */
export function pendingPlanApproval(state: Pick<PlanState, 'planApprovals'>): PlanApprovalState | undefined {
  return state.planApprovals?.find((request) => request.state === 'pending');
}
