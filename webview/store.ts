import type { RunEvent } from '../src/core/plan/events';
import type { PlanState } from '../src/core/plan/planTypes';
import { applyEvent, createPlanState } from '../src/core/plan/reducer';
import type { ApprovalRequestMessage } from '../src/protocol/messages';

// The webview's model: the same events folded by the same reducer as the host, plus what only the
// panel needs (pending approvals, answers already sent). It records what changed since the last
// render so the renderer can restyle single nodes and re-lay out only on structural changes.

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

export type AppendResult =
  | { kind: 'applied'; applied: number }
  /** A seq is missing: ask the host for everything from `fromSeq` (once per gap). */
  | { kind: 'gap'; runId: string; fromSeq: number; shouldRequest: boolean; applied: number };

function emptyChanges(): ChangeSet {
  return { reset: false, structure: false, steps: new Set(), run: false, approvals: false, events: 0 };
}

const RUN_EVENTS = new Set<RunEvent['type']>(['run_started', 'plan_created', 'run_finished', 'llm_request', 'subgraph_replaced']);

/** Folds host messages into PlanState and tracks change flags between renders. */
export class PlanStore {
  state: PlanState = createPlanState();
  /** Run the panel shows; undefined before the first reset. */
  runId: string | undefined;
  live = false;
  approvals: ApprovalRequestMessage[] = [];
  private approvalsRunId: string | undefined;
  /** Approval request ids answered from this panel (their buttons stay disabled until the host drops them). */
  readonly answered = new Map<string, 'approve' | 'deny'>();
  private readonly answeredAt = new Map<string, number>();
  /** Steps whose retry was requested, keyed by step id → the finishedAt it had then. */
  readonly retried = new Map<string, number | undefined>();
  cancelRequested = false;
  /** Time of the newest event folded (the end of the elapsed clock for a run that is not live). */
  lastEventTime: number | undefined;
  private changes: ChangeSet = { ...emptyChanges(), reset: true };
  private requestedResyncFrom: number | undefined;

  get lastSeq(): number {
    return this.state.lastSeq;
  }

  /** Replaces everything with the run's full event list (host/reset). */
  reset(runId: string, live: boolean, events: readonly RunEvent[]): void {
    const sameRun = runId === this.runId;
    this.state = createPlanState(runId);
    for (const event of events) applyEvent(this.state, event);
    this.lastEventTime = events.length ? events[events.length - 1].time : undefined;
    this.state.runId ||= runId;
    this.runId = runId;
    this.live = live;
    this.requestedResyncFrom = undefined;
    this.cancelRequested = false;
    this.retried.clear();
    if (!sameRun) {
      this.answered.clear();
      this.answeredAt.clear();
    }
    if (this.approvalsRunId !== runId) this.approvals = [];
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

  /** Replaces the pending approvals (host/approvals). Returns false if they belong to another run. */
  setApprovals(runId: string, pending: readonly ApprovalRequestMessage[]): boolean {
    if (this.runId !== undefined && runId !== this.runId) return false;
    const before = new Set(this.approvals.map((a) => a.stepId));
    this.approvals = [...pending];
    this.approvalsRunId = runId;
    const live = new Set(pending.map((a) => a.requestId));
    for (const id of [...this.answered.keys()]) {
      if (live.has(id)) continue;
      this.answered.delete(id);
      this.answeredAt.delete(id);
    }
    for (const a of pending) before.add(a.stepId);
    for (const stepId of before) this.changes.steps.add(stepId);
    this.changes.approvals = true;
    return true;
  }

  /** Approvals still waiting for an answer from anyone (host list minus those this panel answered). */
  openApprovals(): ApprovalRequestMessage[] {
    return this.approvals.filter((a) => !this.answered.has(a.requestId) && this.isAwaiting(a));
  }

  /** Approvals to show on nodes: still awaiting, including those answered here but not yet dropped by the host. */
  visibleApprovals(): ApprovalRequestMessage[] {
    return this.approvals.filter((a) => this.isAwaiting(a));
  }

  /** The host list can lag behind the events: drop approvals whose call already finished. */
  isAwaiting(a: ApprovalRequestMessage): boolean {
    const call = this.state.steps.get(a.stepId)?.toolCalls.find((c) => c.id === a.callId);
    return !call || call.status === 'awaiting_approval' || call.status === 'pending';
  }

  /** Records an answer; false if that request was already answered (a double click). */
  markAnswered(requestId: string, decision: 'approve' | 'deny', now = Date.now()): boolean {
    if (this.answered.has(requestId)) return false;
    this.answered.set(requestId, decision);
    this.answeredAt.set(requestId, now);
    const a = this.approvals.find((x) => x.requestId === requestId);
    if (a) this.changes.steps.add(a.stepId);
    this.changes.approvals = true;
    return true;
  }

  /**
   * Re-enables answers the host still lists after `ttlMs` (it rejected the answer, e.g. a stale
   * hash, and said so in a notice), so the buttons are not stuck disabled. Returns true if any.
   */
  expireAnswers(now: number, ttlMs: number): boolean {
    let expired = false;
    for (const [requestId, at] of this.answeredAt) {
      if (now - at < ttlMs) continue;
      const a = this.approvals.find((x) => x.requestId === requestId);
      this.answeredAt.delete(requestId);
      if (!a) continue;
      this.answered.delete(requestId);
      this.changes.steps.add(a.stepId);
      this.changes.approvals = true;
      expired = true;
    }
    return expired;
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
    applyEvent(this.state, event);
    this.lastEventTime = event.time;
    const c = this.changes;
    c.events++;
    if (this.state.structureVersion !== version) c.structure = true;
    if ('stepId' in event && typeof event.stepId === 'string') c.steps.add(event.stepId);
    if (RUN_EVENTS.has(event.type)) c.run = true;
    if (event.type === 'step_status_changed' || event.type === 'tool_call_completed' || event.type === 'tool_call_awaiting_approval') c.approvals = true;
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
