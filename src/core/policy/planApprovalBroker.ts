import { randomUUID } from 'node:crypto';
import type { EventLog } from '../plan/eventLog';
import { pendingPlanApproval } from '../plan/planApprovalFold';
import type { PlanApprovalState, ProposedStep, ScopeWidening } from '../plan/planApprovalSchema';

// Plan approvals (docs/design.md, “Step scopes and plan approval”), whoever answers them: the
// panel or the CLI. As with tool approvals, the request and its answer are events of the run
// (`plan_approval_requested`, `plan_approval_answered`), what is pending is read from the plan
// state, and an answer must quote the request id: an answer to an unknown or already answered
// request is refused and changes nothing. The broker only keeps the promise the run waits on.

/** What is asked: the proposed steps and, for a replan, what they need beyond the approved scopes. */
export interface PlanApprovalProposal {
  kind: 'plan' | 'replan';
  title?: string;
  steps: ProposedStep[];
  failedStepId?: string;
  widening?: ScopeWidening[];
  attempt: number;
}

export interface PlanApprovalAnswer {
  requestId: string;
  approved: boolean;
  feedback?: string;
  source?: string;
}

export type PlanApprovalOutcome =
  { decision: 'approve'; source?: string } | { decision: 'deny'; feedback?: string; source?: string } | { decision: 'cancelled'; reason: string };

export type PlanAnswerResult =
  { accepted: true } | { accepted: false; reason: 'unknown_request' | 'already_answered' | 'run_over' | 'malformed'; message: string };

const MAX_FEEDBACK_CHARS = 4000;

export class PlanApprovalBroker {
  private log: EventLog | undefined;
  private readonly waiters = new Map<string, (outcome: PlanApprovalOutcome) => void>();
  private readonly listeners = new Set<(pending: PlanApprovalState | undefined) => void>();

  constructor(private readonly newId: () => string = randomUUID) {}

  /** Records into the run's log (AgentRun binds it through the ApprovalBroker). */
  bind(log: EventLog): void {
    if (this.log && this.log !== log) throw new Error("this plan approval broker already records into another run's event log");
    this.log = log;
  }

  /** Opens a request (`plan_approval_requested`); the outcome resolves once: approve, deny (with feedback) or cancelled. */
  request(proposal: PlanApprovalProposal, signal?: AbortSignal): { requestId: string; outcome: Promise<PlanApprovalOutcome> } {
    const log = this.log;
    if (!log) throw new Error('the plan approval broker has no event log to record into');
    const requestId = this.newId();
    let settle!: (outcome: PlanApprovalOutcome) => void;
    const outcome = new Promise<PlanApprovalOutcome>((resolve) => (settle = resolve));
    if (signal?.aborted) {
      settle({ decision: 'cancelled', reason: 'the run was cancelled' });
      return { requestId, outcome };
    }
    const onAbort = () => {
      this.waiters.delete(requestId);
      settle({ decision: 'cancelled', reason: 'the run was cancelled' });
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    this.waiters.set(requestId, (result) => {
      signal?.removeEventListener('abort', onAbort);
      settle(result);
    });
    log.append({ type: 'plan_approval_requested', requestId, ...structuredClone(proposal) });
    this.emit();
    return { requestId, outcome };
  }

  /** Applies an answer that quotes the pending request; anything else is refused. Never throws. */
  answer(answer: PlanApprovalAnswer): PlanAnswerResult {
    if (!answer || typeof answer !== 'object' || typeof answer.requestId !== 'string' || typeof answer.approved !== 'boolean')
      return { accepted: false, reason: 'malformed', message: 'malformed answer' };
    if (this.log?.state.finishedAt !== undefined) return { accepted: false, reason: 'run_over', message: 'the run has already finished' };
    const request = this.log?.state.planApprovals?.find((item) => item.requestId === answer.requestId);
    if (!request) return { accepted: false, reason: 'unknown_request', message: 'unknown plan approval request' };
    const settle = this.waiters.get(answer.requestId);
    if (request.state !== 'pending' || !settle) return { accepted: false, reason: 'already_answered', message: 'the plan approval was already answered' };
    const source = typeof answer.source === 'string' && answer.source ? answer.source : undefined;
    const feedback = !answer.approved && typeof answer.feedback === 'string' ? answer.feedback.trim().slice(0, MAX_FEEDBACK_CHARS) : '';
    this.log!.append({ type: 'plan_approval_answered', requestId: answer.requestId, approved: answer.approved, feedback: feedback || undefined, source });
    this.waiters.delete(answer.requestId);
    settle(answer.approved ? { decision: 'approve', source } : { decision: 'deny', ...(feedback ? { feedback } : {}), source });
    this.emit();
    return { accepted: true };
  }

  /** The request waiting for an answer, if any (read from the plan state). */
  pending(): PlanApprovalState | undefined {
    return this.log ? pendingPlanApproval(this.log.state) : undefined;
  }

  /** Called with the pending request after every change; returns the unsubscribe function. */
  onDidChange(listener: (pending: PlanApprovalState | undefined) => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  private emit(): void {
    const pending = this.pending();
    for (const listener of [...this.listeners]) {
      try {
        listener(pending);
      } catch {
        // A listener's failure is its own; the run goes on.
      }
    }
  }
}
