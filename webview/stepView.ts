import { stepDrifts } from '../src/core/plan/stepDrift';
import type { PlanState, ReplanRecord, StepState, StepStatus, ToolCallRecord, ToolCallStatus } from '../src/core/plan/planTypes';
import type { ApprovalRequestMessage } from '../src/protocol/messages';
import { approvalLabel, callLabel } from './approvalText';
import { stepTokensTag } from './contextView';
import { humanize, mcpLabel, mcpOrigin, oneLine } from './format';
import type { ProofVerdict } from '../src/core/plan/events';
import { proofOf } from './proofChecks';
import { CALL_STATUS_ICON, STEP_STATUS_ICON, type Codicon } from './icons';

// Pure view model of one DAG node: every label, icon, chip and aria text the renderer shows, so
// the wording is unit-tested in Node and the DOM code only copies strings into textContent.

export const MAX_NODE_CHIPS = 4;

export const STATUS_LABEL: Record<StepStatus, string> = {
  not_started: 'Not started',
  in_progress: 'In progress',
  completed: 'Completed',
  failed: 'Failed',
  blocked: 'Blocked',
};

export const CALL_STATUS_LABEL: Record<ToolCallStatus, string> = {
  pending: 'pending',
  success: 'success',
  error: 'error',
  awaiting_approval: 'awaiting approval',
  rejected: 'rejected',
};

export interface ChipView {
  callId: string;
  status: ToolCallStatus;
  icon: Codicon;
  label: string;
  /** Hover text: name, requested name if different, status. */
  title: string;
}

export interface StepView {
  id: string;
  status: StepStatus;
  statusLabel: string;
  icon: Codicon;
  description: string;
  replaced: boolean;
  /** Added by a replan (and still live). */
  isNew: boolean;
  tags: Array<{ text: string; title: string; kind: 'new' | 'replaced' | 'attempt' | 'tokens' }>;
  /** One short line under the description: why blocked, what replaced it, why it failed. */
  meta: string;
  chips: ChipView[];
  /** How the step proved its work: the node's proof badge (webview/proofChecks.ts). */
  proof?: ProofVerdict;
  /** Calls and changes outside the step's approved scope (docs/design.md, “Step scopes and plan approval”). */
  drift: number;
  /** Calls not shown as chips. */
  moreChips: number;
  ariaLabel: string;
  approvals: StepApprovalView[];
  retry: 'none' | 'available' | 'sent';
}

export interface StepApprovalView {
  approval: ApprovalRequestMessage;
  /** Set once this panel answered it (buttons stay disabled until the events settle it or the host refuses the answer). */
  sent?: 'approve' | 'deny';
}

/** What the view needs beyond the plan: the pending approvals (read from the plan) and what this panel already sent. */
export interface StepViewContext {
  approvals?: readonly ApprovalRequestMessage[];
  answered?: ReadonlyMap<string, 'approve' | 'deny'>;
  retryPending?: (stepId: string) => boolean;
}

/** The call's chip: status icon + resolved name, with requested-vs-resolved in the hover text. */
export function chipView(call: ToolCallRecord): ChipView {
  const renamed = call.requestedName && call.requestedName !== call.name;
  // An MCP call names its server: `everything › get-sum`.
  const mcp = mcpOrigin(call);
  const via = mcp ? ` — tool “${mcp.tool}” of MCP server “${mcp.server}”` : '';
  const title = `${call.name}${renamed ? ` (requested as “${call.requestedName}”, ${call.nameResolution})` : ''}${via}: ${CALL_STATUS_LABEL[call.status]}`;
  return {
    callId: call.id,
    status: call.status,
    icon: CALL_STATUS_ICON[call.status],
    label: mcp ? mcpLabel(mcp) : call.name || call.requestedName || '(unnamed)',
    title,
  };
}

/** At most `max` chips: calls awaiting approval, errors and pending calls first, then the most recent; shown in call order. */
export function pickChips(calls: readonly ToolCallRecord[], max = MAX_NODE_CHIPS): { chips: ChipView[]; more: number } {
  if (calls.length <= max) return { chips: calls.map(chipView), more: 0 };
  const rank = (c: ToolCallRecord): number =>
    c.status === 'awaiting_approval' ? 0 : c.status === 'error' || c.status === 'rejected' ? 1 : c.status === 'pending' ? 2 : 3;
  const order = calls.map((c, i) => ({ c, i })).sort((a, b) => rank(a.c) - rank(b.c) || b.i - a.i);
  const keep = new Set(order.slice(0, max).map((x) => x.i));
  return { chips: calls.filter((_, i) => keep.has(i)).map(chipView), more: calls.length - max };
}

/** The replan record that removed a replaced step. */
export function replanOf(state: PlanState, step: StepState): ReplanRecord | undefined {
  return step.replacedBy ? state.replans[step.replacedBy.replanIndex] : undefined;
}

/** The replan record that created a step (if a replan did). */
export function creatingReplan(state: PlanState, stepId: string): ReplanRecord | undefined {
  for (let i = state.replans.length - 1; i >= 0; i--) if (state.replans[i].newStepIds.includes(stepId)) return state.replans[i];
  return undefined;
}

/** "replaced by replan 1 of 2". */
export function replacedLabel(state: PlanState, step: StepState): string {
  if (!step.replacedBy) return '';
  const record = replanOf(state, step);
  const n = record?.attempt ?? step.replacedBy.replanIndex + 1;
  const max = record?.maxAttempts ?? 2;
  return `replaced by replan ${n} of ${max}`;
}

function findStep(state: PlanState, id: string): StepState | undefined {
  return state.steps.get(id) ?? state.replacedSteps.get(id);
}

/** Why a step ended the way it did, in words ("approval denied", "failed: 2 calls pending"). */
export function endLabel(step: StepState): string {
  if (step.endReason) return humanize(step.endReason);
  if (step.status === 'failed' && step.verdict && !step.verdict.passed) return step.verdict.reason;
  return '';
}

/** "blocked by s2 (approval denied)": which failure or denial blocked a step. */
export function blockedLabel(state: PlanState, step: StepState): string {
  if (step.status !== 'blocked') return '';
  if (!step.blockedBy || step.blockedBy === step.id) {
    const own = endLabel(step);
    return own ? `blocked: ${own}` : 'blocked';
  }
  const blocker = findStep(state, step.blockedBy);
  const why = blocker ? endLabel(blocker) || STATUS_LABEL[blocker.status].toLowerCase() : '';
  return `blocked by ${step.blockedBy}${why ? ` (${why})` : ''}`;
}

/** Approvals still actionable for this step: pending, and the call still waiting for one. */
export function stepApprovals(step: StepState, approvals: readonly ApprovalRequestMessage[]): ApprovalRequestMessage[] {
  return approvals.filter((a) => {
    if (a.stepId !== step.id) return false;
    const call = step.toolCalls.find((c) => c.id === a.callId);
    return !call || call.status === 'awaiting_approval' || call.status === 'pending';
  });
}

/** True when a person can ask to run the step again: it ended on a denied required approval. */
export function canRetry(step: StepState, replaced: boolean): boolean {
  return !replaced && step.endReason === 'approval_denied' && (step.status === 'blocked' || step.status === 'failed');
}

/** The full view model of one node. */
export function stepView(state: PlanState, step: StepState, replaced: boolean, ctx: StepViewContext = {}): StepView {
  const tags: StepView['tags'] = [];
  const isNew = !replaced && step.origin === 'replan';
  if (replaced) tags.push({ text: 'replaced', title: replacedLabel(state, step), kind: 'replaced' });
  if (step.origin === 'replan') {
    const record = creatingReplan(state, step.id);
    const streaming = step.redesignOf ? `added by the redesign of ${step.redesignOf}, still streaming` : 'added by a replan';
    if (isNew) tags.push({ text: 'new', title: record ? `added by replan ${record.attempt} of ${record.maxAttempts}` : streaming, kind: 'new' });
  }
  // Live steps show what they spent; a replaced step's tokens are in its details.
  const tokens = replaced ? undefined : stepTokensTag(step);
  if (tokens) tags.push({ ...tokens, kind: 'tokens' });
  const mine = replaced ? [] : stepApprovals(step, ctx.approvals ?? []);
  let meta = '';
  if (replaced) {
    const targets = step.replacedBy?.newStepIds ?? [];
    meta = `${replacedLabel(state, step)}${targets.length ? ` → ${targets.slice(0, 3).join(', ')}${targets.length > 3 ? '…' : ''}` : ''}`;
  } else if (step.status === 'blocked') meta = blockedLabel(state, step);
  else if (mine.length > 0) meta = `awaiting approval: ${mine.map((a) => approvalLabel(a)).join(', ')}`;
  else if (step.status === 'failed') meta = endLabel(step);
  else if (step.status === 'in_progress' && step.toolCalls.length > 0) {
    const last = step.toolCalls[step.toolCalls.length - 1];
    meta = `${last.status === 'pending' ? 'running' : 'last'}: ${callLabel(last)}`;
  }
  const { chips, more } = pickChips(step.toolCalls);
  const statusLabel = STATUS_LABEL[step.status];
  const parts = [`Step ${step.id}: ${oneLine(step.description, 160)}`, replaced ? `${statusLabel}, ${replacedLabel(state, step)}` : statusLabel];
  if (isNew) parts.push('new');
  if (meta && !replaced) parts.push(meta);
  parts.push(`${step.toolCalls.length} tool call${step.toolCalls.length === 1 ? '' : 's'}`);
  if (tokens) parts.push(tokens.title);
  if (mine.length > 0) parts.push(`${mine.length} approval${mine.length === 1 ? '' : 's'} pending`);
  const drift = stepDrifts(step).length;
  if (drift > 0) parts.push(`${drift} drift outside the approved scope`);
  const retry = canRetry(step, replaced) ? (ctx.retryPending?.(step.id) ? 'sent' : 'available') : 'none';
  return {
    id: step.id,
    status: step.status,
    statusLabel,
    icon: STEP_STATUS_ICON[step.status],
    description: step.description,
    replaced,
    isNew,
    tags,
    proof: proofOf(step),
    drift,
    meta,
    chips,
    moreChips: more,
    ariaLabel: parts.join('. '),
    approvals: mine.map((approval) => ({ approval, sent: ctx.answered?.get(approval.requestId) })),
    retry,
  };
}

/** The replans that touched this step's lineage (the step, its predecessors and its replacements), oldest first. */
export function lineageReplans(state: PlanState, step: StepState): ReplanRecord[] {
  const ids = new Set<string>([step.id]);
  for (const s of state.steps.values()) if (s.lineage === step.lineage) ids.add(s.id);
  for (const s of state.replacedSteps.values()) if (s.lineage === step.lineage) ids.add(s.id);
  return state.replans.filter((r) => ids.has(r.failedStepId) || r.replacedStepIds.some((id) => ids.has(id)) || r.newStepIds.some((id) => ids.has(id)));
}

/** One line describing a replan record. */
export function replanSummary(record: ReplanRecord): string {
  const head = `Replan ${record.attempt} of ${record.maxAttempts} (${record.action === 'redesign' ? 'redesign' : 'gave up'}) after ${record.failedStepId} failed`;
  const parts = [head];
  if (record.reason) parts.push(`reason: ${record.reason}`);
  if (record.replacedStepIds.length) parts.push(`replaced ${record.replacedStepIds.join(', ')}`);
  if (record.newStepIds.length) parts.push(`new ${record.newStepIds.join(', ')}`);
  return parts.join(' · ');
}
