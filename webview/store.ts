import { pendingApprovals } from '../src/core/plan/approvalState';
import { pendingPlanApproval } from '../src/core/plan/planApprovalFold';
import type { PlanApprovalState } from '../src/core/plan/planApprovalSchema';
import type { RunEvent } from '../src/core/plan/events';
import type { PlanState } from '../src/core/plan/planTypes';
import { applyEvent, createPlanState } from '../src/core/plan/reducer';
import { noteRateLimitEvent, type RateLimitWait } from './rateLimitWait';
import { noteReasoningEvent, type StepReasoning } from './reasoningTurns';
import type { ApprovalRequestMessage } from '../src/protocol/messages';

// The webview's model: the same events folded by the same reducer as the host (approvals included),
// plus what only the panel needs (answers sent and not settled yet). It records what changed since
// the last render so the renderer can restyle single nodes and re-lay out only on structural changes.

/** What changed since the last `takeChanges()`. */
export interface ChangeSet {
  /** Everything must be rebuilt (reset / new run). */
  reset: boolean;
  /** Steps or edges changed: re-run the layout. */
  structure: boolean;
  /** Steps whose node must be restyled. */
  steps: Set<string>;
  /** Header / result area (status, title, tokens, answer). */
  run: boolean;
  approvals: boolean;
  events: number;
}

/** What the host said about one answer (host/approvalAnswer). */
export interface AnswerReply {
  replyTo: string;
  outcome: 'accepted' | 'refused';
  reason?: string;
  message?: string;
}

export type AppendResult =
  | { kind: 'applied'; applied: number }
  /** A seq is missing: ask the host for everything from `fromSeq` (once per gap). */
  | { kind: 'gap'; runId: string; fromSeq: number; shouldRequest: boolean; applied: number };

function emptyChanges(): ChangeSet {
  return { reset: false, structure: false, steps: new Set(), run: false, approvals: false, events: 0 };
}

const RUN_EVENTS = new Set<RunEvent['type']>(['run_started', 'plan_created', 'run_finished', 'llm_request', 'subgraph_replaced', 'plan_discarded']);

/** Folds host messages into PlanState and tracks change flags between renders. */
export class PlanStore {
  state: PlanState = createPlanState();
  /** Run the panel shows; undefined before the first reset. */
  runId: string | undefined;
  live = false;
  /**
   * Requests answered from this panel and still pending in the plan: their buttons stay disabled
   * until the events settle them or the host refuses the answer.
   */
  readonly answered = new Map<string, 'approve' | 'deny'>();
  /** replyTo nonce → the request id its answer was for, until the host replies. */
  private readonly awaitingReply = new Map<string, string>();
  private replies = 0;
  private pendingCache: { state: PlanState; seq: number; list: ApprovalRequestMessage[] } | undefined;
  /** Steps whose retry was requested, keyed by step id → the finishedAt it had then. */
  readonly retried = new Map<string, number | undefined>();
  cancelRequested = false;
  /** The host can resume this interrupted run (docs/design.md, “Resuming a run”); `resumeRequested` once asked. */
  resumable = false;
  resumeRequested = false;
  /** Time of the newest event folded (the end of the elapsed clock for a run that is not live). */
  lastEventTime: number | undefined;
  /** Rate-limited requests waiting for their retry (counted down in the header). */
  rateLimitWaits: readonly RateLimitWait[] = [];
  /** The model's reasoning per step and executor turn, for the tool history. */
  reasoning: ReadonlyMap<string, StepReasoning> = new Map();
  private changes: ChangeSet = { ...emptyChanges(), reset: true };
  private requestedResyncFrom: number | undefined;

  get lastSeq(): number {
    return this.state.lastSeq;
  }

  /** Replaces everything with the run's full event list (host/reset). */
  reset(runId: string, live: boolean, events: readonly RunEvent[], resumable = false): void {
    const sameRun = runId === this.runId;
    this.state = createPlanState(runId);
    this.rateLimitWaits = [];
    this.reasoning = new Map();
    for (const event of events) {
      applyEvent(this.state, event);
      this.rateLimitWaits = noteRateLimitEvent(this.rateLimitWaits, event);
      this.reasoning = noteReasoningEvent(this.reasoning, event);
    }
    this.lastEventTime = events.length ? events[events.length - 1].time : undefined;
    this.state.runId ||= runId;
    this.runId = runId;
    this.live = live;
    this.resumable = resumable;
    this.resumeRequested = false;
    this.requestedResyncFrom = undefined;
    this.cancelRequested = false;
    this.retried.clear();
    if (!sameRun) {
      this.answered.clear();
      this.awaitingReply.clear();
    }
    const open = new Set(this.pendingApprovals().map((a) => a.requestId));
    for (const requestId of [...this.answered.keys()]) if (!open.has(requestId)) this.answered.delete(requestId);
    this.changes = { ...emptyChanges(), reset: true, structure: true, run: true, approvals: true, events: events.length };
  }

  /**
   * Appends a host/events batch. Events already folded (seq <= lastSeq) are skipped, so a batch
   * overlapping a reset is harmless; a missing seq stops folding and reports the gap.
   */
  appendEvents(runId: string, fromSeq: number, events: readonly RunEvent[]): AppendResult {
    if (runId !== this.runId) {
      // A batch of a run we never got a reset for: only a full resync can help.
      return this.gap(runId, 0, 0);
    }
    let expected = this.state.lastSeq + 1;
    if (fromSeq > expected) return this.gap(runId, expected, 0);
    let applied = 0;
    for (const event of events) {
      if (event.seq < expected) continue;
      if (event.seq > expected) return this.gap(runId, expected, applied);
      this.fold(event);
      applied++;
      expected++;
    }
    if (applied > 0) this.requestedResyncFrom = undefined;
    return { kind: 'applied', applied };
  }

  /** Requests waiting for a person, from the plan state; none once the run is over or replayed from a trace. */
  pendingApprovals(): ApprovalRequestMessage[] {
    if (!this.live || this.state.status !== 'running') return [];
    const cached = this.pendingCache;
    if (cached?.state === this.state && cached.seq === this.state.lastSeq) return cached.list;
    const list = pendingApprovals(this.state);
    this.pendingCache = { state: this.state, seq: this.state.lastSeq, list };
    return list;
  }

  /** The plan approval waiting for a person (docs/design.md, “Step scopes and plan approval”); none once the run is over or replayed. */
  pendingPlanApproval(): PlanApprovalState | undefined {
    if (!this.live || this.state.status !== 'running') return undefined;
    return pendingPlanApproval(this.state);
  }

  /** Records a plan answer about to be sent; the `replyTo` nonce, or undefined when already answered from here. */
  markPlanAnswered(requestId: string, approved: boolean): string | undefined {
    if (this.answered.has(requestId) || this.pendingPlanApproval()?.requestId !== requestId) return undefined;
    const replyTo = `answer-${++this.replies}`;
    this.answered.set(requestId, approved ? 'approve' : 'deny');
    this.awaitingReply.set(replyTo, requestId);
    this.changes.approvals = true;
    return replyTo;
  }

  /** Approvals still waiting for an answer from anyone (pending minus those this panel answered). */
  openApprovals(): ApprovalRequestMessage[] {
    return this.pendingApprovals().filter((a) => !this.answered.has(a.requestId));
  }

  /** Approvals to show on nodes: pending, including those answered here and not settled yet (disabled). */
  visibleApprovals(): ApprovalRequestMessage[] {
    return this.pendingApprovals();
  }

  /**
   * Records an answer about to be sent and returns the `replyTo` nonce for it; undefined if that
   * request was already answered from here (a double click) or is not pending.
   */
  markAnswered(requestId: string, decision: 'approve' | 'deny'): string | undefined {
    if (this.answered.has(requestId)) return undefined;
    const approval = this.pendingApprovals().find((x) => x.requestId === requestId);
    if (!approval) return undefined;
    const replyTo = `answer-${++this.replies}`;
    this.answered.set(requestId, decision);
    this.awaitingReply.set(replyTo, requestId);
    this.changes.steps.add(approval.stepId);
    this.changes.approvals = true;
    return replyTo;
  }

  /** The answer could not be sent after all: its buttons come back. */
  answerNotSent(replyTo: string): void {
    this.settleReply(replyTo, true);
  }

  /**
   * Applies the host's reply to an answer. A refusal re-enables the buttons (if the request still
   * waits) and returns the text to show; an acceptance waits for the events, which settle the request.
   */
  applyReply(reply: AnswerReply): { refused?: string } {
    if (!this.awaitingReply.has(reply.replyTo)) return {};
    if (reply.outcome === 'accepted') {
      this.settleReply(reply.replyTo, false);
      return {};
    }
    this.settleReply(reply.replyTo, true);
    return { refused: `That approval was not applied: ${reply.message ?? reply.reason ?? 'unknown reason'}` };
  }

  private settleReply(replyTo: string, reopen: boolean): void {
    const requestId = this.awaitingReply.get(replyTo);
    if (requestId === undefined) return;
    this.awaitingReply.delete(replyTo);
    const approval = this.pendingApprovals().find((x) => x.requestId === requestId);
    if (reopen || !approval) this.answered.delete(requestId);
    if (approval) this.changes.steps.add(approval.stepId);
    this.changes.approvals = true;
  }

  /** Records a retry request; false if one is already outstanding for this attempt of the step. */
  markRetried(stepId: string): boolean {
    const step = this.state.steps.get(stepId);
    if (this.retried.has(stepId) && this.retried.get(stepId) === step?.finishedAt) return false;
    this.retried.set(stepId, step?.finishedAt);
    this.changes.steps.add(stepId);
    return true;
  }

  /** True when a retry was sent and the step has not finished again since. */
  retryPending(stepId: string): boolean {
    return this.retried.has(stepId) && this.retried.get(stepId) === this.state.steps.get(stepId)?.finishedAt;
  }

  markResumeRequested(): boolean {
    if (this.resumeRequested || !this.resumable) return false;
    this.resumeRequested = true;
    this.changes.run = true;
    return true;
  }

  markCancelRequested(): boolean {
    if (this.cancelRequested) return false;
    this.cancelRequested = true;
    this.changes.run = true;
    return true;
  }

  /** Marks a step for restyle without an event (selection change). */
  touch(stepId: string): void {
    this.changes.steps.add(stepId);
  }

  hasChanges(): boolean {
    const c = this.changes;
    return c.reset || c.structure || c.run || c.approvals || c.steps.size > 0;
  }

  /** Returns the changes since the last call and starts a new change set. */
  takeChanges(): ChangeSet {
    const c = this.changes;
    this.changes = emptyChanges();
    return c;
  }

  private fold(event: RunEvent): void {
    const version = this.state.structureVersion;
    // The end of the run takes every remaining button away.
    if (event.type === 'run_finished') for (const a of this.pendingApprovals()) this.changes.steps.add(a.stepId);
    applyEvent(this.state, event);
    this.lastEventTime = event.time;
    const c = this.changes;
    c.events++;
    const waits = this.rateLimitWaits;
    this.rateLimitWaits = noteRateLimitEvent(waits, event);
    if (this.rateLimitWaits !== waits) c.run = true;
    this.reasoning = noteReasoningEvent(this.reasoning, event);
    if (this.state.structureVersion !== version) c.structure = true;
    if ('stepId' in event && typeof event.stepId === 'string') c.steps.add(event.stepId);
    // A revert changes the steps it names and the run's buttons (docs/design.md, “Checkpoints and revert”).
    if (event.type === 'files_reverted') {
      for (const id of event.stepIds) c.steps.add(id);
      c.run = true;
    }
    if (RUN_EVENTS.has(event.type)) c.run = true;
    if (
      event.type === 'step_status_changed' ||
      event.type === 'tool_call_completed' ||
      event.type === 'tool_call_awaiting_approval' ||
      event.type === 'approval_answered' ||
      event.type === 'approval_withdrawn' ||
      event.type === 'plan_approval_requested' ||
      event.type === 'plan_approval_answered' ||
      event.type === 'run_finished'
    )
      c.approvals = true;
    if (event.type === 'plan_approval_answered') this.answered.delete(event.requestId);
    // A drift changes its step's badge and the header's count.
    if (event.type === 'step_audit' && event.kind === 'drift') {
      c.steps.add(event.stepId);
      c.run = true;
    }
    // A settled request needs no disabled buttons any more.
    if (event.type === 'approval_answered' || event.type === 'approval_withdrawn') this.answered.delete(event.requestId);
    // A blocker's end reason shows on the steps it blocked.
    if (event.type === 'step_status_changed') {
      for (const step of this.state.steps.values()) if (step.blockedBy === event.stepId) c.steps.add(step.id);
    }
  }

  private gap(runId: string, fromSeq: number, applied: number): AppendResult {
    const shouldRequest = this.requestedResyncFrom !== fromSeq;
    this.requestedResyncFrom = fromSeq;
    return { kind: 'gap', runId, fromSeq, shouldRequest, applied };
  }
}
