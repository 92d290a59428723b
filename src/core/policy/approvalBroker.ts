import { createHash, randomUUID } from 'node:crypto';
import { findApproval, pendingApprovals, toPending, type PendingApproval } from '../plan/approvalState';
import type { EventLog } from '../plan/eventLog';
import type { ApprovalRefusal, ApprovalWithdrawal } from '../plan/events';
import { silentLogger, type Logger } from '../ports';
import type { ApprovalScope, RememberedRule } from '../plan/rememberedApproval';
import type { ApprovalMemory } from './approvalMemory';
import { rememberOffer, type RememberableCall } from './rememberedRules';
import { PlanApprovalBroker } from './planApprovalBroker';

// Approvals (docs/design.md, “Approvals”), whoever answers them: the panel, the CLI or a notification.
// Every step of a request's life is an event in the run's log: requested
// (`tool_call_awaiting_approval`), answered, refused, withdrawn. What is pending is read from the
// plan state those events fold into; the broker itself only keeps the promises the tool batches
// wait on. A request is bound to one call id and the sha256 of the exact argument JSON that will
// run; an answer must quote both, so an answer to a stale, withdrawn, already-answered or unknown
// request is refused (and recorded), and a double click can never approve twice.

/** A pending request: the call, its exact arguments and their hash, the gate. */
export type ApprovalRequest = PendingApproval;

export interface ApprovalAnswer {
  requestId: string;
  callId: string;
  argsHash: string;
  decision: 'approve' | 'deny';
  feedback?: string;
  /** Who answered: 'panel', 'cli', 'notification'... (recorded, passed on in the outcome). */
  source?: string;
  /** 'run' or 'workspace': also approve later calls the request's remember offer covers (docs/design.md, “Remembered approvals”). */
  scope?: ApprovalScope;
}

/** What the remembered rules need of a call besides its tool and arguments: absent when the call may never be remembered. */
export type RememberableParts = Pick<RememberableCall, 'command' | 'paths'>;

/** A request as the batch runner opens it; `rememberable` only for a call a remembered answer may cover. */
export type ApprovalRequestInput = Omit<ApprovalRequest, 'requestId' | 'argsHash' | 'remember'> & { rememberable?: RememberableParts };

export type ApprovalOutcome =
  { decision: 'approve'; source?: string } | { decision: 'deny'; feedback?: string; source?: string } | { decision: 'cancelled'; reason: string };

/** Why an answer was not applied: a recorded refusal, or the run is over (its trace has ended, so nothing is recorded). */
export type AnswerRefusal = ApprovalRefusal | 'run_over';
export type AnswerResult = { accepted: true } | { accepted: false; reason: AnswerRefusal; message: string };

export interface ApprovalBrokerOptions {
  logger?: Logger;
  /** Request id generator; defaults to crypto.randomUUID. */
  newId?: () => string;
  /** The run's event log; AgentRun binds it when not given here. */
  log?: EventLog;
  /** Remembered answers (trusted workspaces only); without it every call is asked for. */
  memory?: ApprovalMemory;
}

interface Waiter {
  stepId: string;
  callId: string;
  settle: (outcome: ApprovalOutcome) => void;
  /** Set when a remembered answer may approve it. */
  rememberable?: RememberableCall;
}

const MAX_FEEDBACK_CHARS = 4000;

/** sha256 (hex) of the exact argument JSON string. */
export function hashArguments(argumentsJson: string): string {
  return createHash('sha256').update(argumentsJson, 'utf8').digest('hex');
}

export class ApprovalBroker {
  private log: EventLog | undefined;
  /** Outcomes not settled yet, by request id: the tool batches wait on them. */
  private readonly waiters = new Map<string, Waiter>();
  private readonly listeners = new Set<(pending: ApprovalRequest[]) => void>();
  private readonly logger: Logger;
  private readonly newId: () => string;
  private readonly memory: ApprovalMemory | undefined;
  /** The run's plan approvals (docs/design.md, “Step scopes and plan approval”), answered by the same hosts. */
  readonly plans = new PlanApprovalBroker();

  constructor(options: ApprovalBrokerOptions = {}) {
    this.logger = options.logger ?? silentLogger;
    this.newId = options.newId ?? randomUUID;
    this.memory = options.memory;
    if (options.log) this.bind(options.log);
  }

  /** Records this broker's requests, answers, refusals and withdrawals into the run's log (once per broker). */
  bind(log: EventLog): void {
    if (this.log && this.log !== log) throw new Error("this approval broker already records into another run's event log");
    this.log = log;
    this.plans.bind(log);
  }

  /**
   * Opens a request for one recorded call (`tool_call_awaiting_approval`). The outcome resolves
   * once: approve, deny (with feedback) or cancelled (the signal aborted, the step ended, or a newer
   * request for the same call superseded it).
   */
  request(input: ApprovalRequestInput, signal?: AbortSignal): { request: ApprovalRequest; outcome: Promise<ApprovalOutcome> } {
    if (!input.callId || !input.stepId || !input.toolName) throw new TypeError('an approval request needs a stepId, a callId and a toolName');
    if (typeof input.argumentsJson !== 'string') throw new TypeError('an approval request needs the exact argument JSON string');
    const log = this.log;
    if (!log) throw new Error('the approval broker has no event log to record into (AgentRun binds it)');
    const call = log.state.steps.get(input.stepId)?.toolCalls.find((c) => c.id === input.callId);
    if (!call) throw new Error(`cannot ask approval for call ${input.callId} of step ${input.stepId}: the call is not recorded`);
    // A person approves what the trace and the panel show: the recorded call, exactly.
    if (call.name !== input.toolName || call.arguments !== input.argumentsJson)
      throw new Error(`cannot ask approval for call ${input.callId}: the tool or arguments differ from the recorded call`);
    const requestId = this.newId();
    if (this.waiters.has(requestId) || findApproval(log.state, requestId)) throw new Error(`approval request id ${requestId} is already in use`);
    if (call.approval?.state === 'pending') this.withdraw(call.approval.requestId, 'superseded', 'superseded by a newer approval request for the same call');
    const argsHash = hashArguments(input.argumentsJson);
    const rememberable: RememberableCall | undefined =
      this.memory && input.rememberable ? { ...input.rememberable, toolName: input.toolName, argumentsJson: input.argumentsJson, argsHash } : undefined;
    const offer = rememberable ? rememberOffer(rememberable) : undefined;
    if (offer && !this.memory?.persists) offer.workspace = false;

    log.append({
      type: 'tool_call_awaiting_approval',
      stepId: input.stepId,
      callId: input.callId,
      approval: {
        required: input.required,
        denyEffect: input.denyEffect,
        reason: input.reason,
        argsHash,
        requestId,
        ...(input.diff !== undefined ? { diff: input.diff } : {}),
        ...(offer ? { remember: offer } : {}),
      },
    });
    const recorded = log.state.steps.get(input.stepId)!.toolCalls.find((c) => c.id === input.callId)!;
    const request = Object.freeze(toPending(input.stepId, recorded, recorded.approval!));

    let resolve!: (outcome: ApprovalOutcome) => void;
    const outcome = new Promise<ApprovalOutcome>((done) => (resolve = done));
    const onAbort = () => this.withdraw(requestId, 'run_cancelled', abortReason(signal!));
    this.waiters.set(requestId, {
      stepId: input.stepId,
      callId: input.callId,
      settle: (result) => {
        signal?.removeEventListener('abort', onAbort);
        resolve(result);
      },
      ...(rememberable ? { rememberable } : {}),
    });
    // An earlier answer "for this run" or "always in this workspace" covers it: approved at once, recorded as such.
    if (!signal?.aborted && this.applyRemembered(requestId)) return { request, outcome };
    if (signal?.aborted) {
      // Recorded and withdrawn at once, never listed as pending.
      this.withdraw(requestId, 'run_cancelled', abortReason(signal), false);
      return { request, outcome };
    }
    signal?.addEventListener('abort', onAbort, { once: true });
    this.logger.info('approval requested', { requestId, stepId: request.stepId, callId: request.callId, tool: request.toolName, required: request.required });
    this.emit();
    return { request, outcome };
  }

  /** Applies one answer if it matches a pending request exactly; otherwise refuses it (recorded while the run lasts). Never throws. */
  answer(answer: ApprovalAnswer): AnswerResult {
    const refused = (reason: AnswerRefusal, message: string): AnswerResult => {
      const requestId = safeString(answer, 'requestId');
      const source = safeString(answer, 'source');
      this.logger.warn('approval answer ignored', { reason: message, requestId, callId: safeString(answer, 'callId'), source });
      if (reason !== 'run_over' && this.log) {
        const known = requestId === undefined ? undefined : findApproval(this.log.state, requestId);
        this.log.append({ type: 'approval_refused', requestId: requestId ?? '', stepId: known?.step.id, callId: known?.call.id, reason, message, source });
      }
      return { accepted: false, reason, message };
    };
    if (!answer || typeof answer !== 'object' || typeof answer.requestId !== 'string') return refused('malformed', 'malformed answer');
    if (answer.decision !== 'approve' && answer.decision !== 'deny') return refused('malformed', `invalid decision ${JSON.stringify(answer.decision)}`);
    // After run_finished the trace is complete: nothing more is recorded.
    if (this.log?.state.finishedAt !== undefined) return refused('run_over', 'the run has already finished');
    const found = this.log ? findApproval(this.log.state, answer.requestId) : undefined;
    const waiter = this.waiters.get(answer.requestId);
    if (!found) return refused('unknown_request', 'unknown approval request');
    const { approval } = found;
    if (approval.state === 'withdrawn') return refused('withdrawn', 'the request was cancelled');
    if (approval.state === 'approved' || approval.state === 'denied')
      return refused('already_answered', `the request was already answered (${approval.state})`);
    if (answer.callId !== found.call.id) return refused('wrong_call', 'the answer names a different call');
    if (answer.argsHash !== approval.argsHash) return refused('stale_hash', 'stale answer: the arguments differ from the ones awaiting approval');
    if (!waiter) return refused('unknown_request', 'unknown approval request');

    const scope = answer.scope ?? 'call';
    if (scope !== 'call' && scope !== 'run' && scope !== 'workspace') return refused('malformed', `invalid scope ${JSON.stringify(answer.scope)}`);
    let remembered: RememberedRule | undefined;
    if (scope !== 'call') {
      if (answer.decision !== 'approve') return refused('malformed', 'only an approval can be remembered, not a denial');
      const offer = approval.remember;
      if (!offer || !this.memory || !waiter.rememberable)
        return refused('malformed', 'this call cannot be approved beyond itself (it is only asked for one call at a time)');
      if (scope === 'workspace' && !offer.workspace) return refused('malformed', 'only a command prefix can be allowed for the workspace, and only in VS Code');
      remembered = offer.rule;
    }
    const source = typeof answer.source === 'string' && answer.source ? answer.source : undefined;
    const feedback = answer.decision === 'deny' && typeof answer.feedback === 'string' ? answer.feedback.trim().slice(0, MAX_FEEDBACK_CHARS) : '';
    this.log!.append({
      type: 'approval_answered',
      stepId: waiter.stepId,
      callId: waiter.callId,
      requestId: answer.requestId,
      decision: answer.decision,
      feedback: feedback || undefined,
      source,
      ...(remembered ? { scope, remembered } : {}),
    });
    this.waiters.delete(answer.requestId);
    if (remembered) this.remember(remembered, scope === 'workspace');
    const outcome: ApprovalOutcome = answer.decision === 'approve' ? { decision: 'approve' } : { decision: 'deny' };
    if (feedback && outcome.decision === 'deny') outcome.feedback = feedback;
    if (source) outcome.source = source;
    waiter.settle(outcome);
    this.logger.info('approval answered', { requestId: answer.requestId, callId: waiter.callId, decision: answer.decision, source, scope });
    // Other requests waiting now that the new answer covers are approved with it.
    if (remembered) for (const id of [...this.waiters.keys()]) this.applyRemembered(id);
    this.emit();
    return { accepted: true };
  }

  /** Requests still waiting for an answer, oldest first (read from the plan state). */
  pending(): ApprovalRequest[] {
    return this.log ? pendingApprovals(this.log.state) : [];
  }

  /** Called with the pending list after every change; returns the unsubscribe function. */
  onDidChange(listener: (pending: ApprovalRequest[]) => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  /** Withdraws every pending request (the run was cancelled or stopped). */
  cancelAll(message: string): void {
    this.withdrawWhere(() => true, 'run_cancelled', message);
  }

  /** Withdraws the step's pending requests: the step ended, nobody waits for them any more. */
  withdrawStep(stepId: string, message: string): void {
    this.withdrawWhere((waiter) => waiter.stepId === stepId, 'step_ended', message);
  }

  /** Keeps a remembered answer; a workspace store that fails to write is logged (the run still remembers it). */
  private remember(rule: RememberedRule, workspace: boolean): void {
    const memory = this.memory!;
    if (!workspace) return memory.rememberForRun(rule);
    memory
      .rememberInWorkspace(rule)
      .catch((error: unknown) =>
        this.logger.error('could not keep the approval for the workspace', { error: error instanceof Error ? error.message : String(error) }),
      );
  }

  /** Approves a waiting request a remembered answer covers (`source: 'remembered'`); true when it did. */
  private applyRemembered(requestId: string): boolean {
    const waiter = this.waiters.get(requestId);
    const found = waiter?.rememberable ? this.memory?.find(waiter.rememberable) : undefined;
    if (!waiter || !found) return false;
    this.log!.append({
      type: 'approval_answered',
      stepId: waiter.stepId,
      callId: waiter.callId,
      requestId,
      decision: 'approve',
      source: 'remembered',
      scope: found.scope,
      remembered: found.rule,
    });
    this.waiters.delete(requestId);
    waiter.settle({ decision: 'approve', source: 'remembered' });
    this.logger.info('approval answered by a remembered answer', { requestId, callId: waiter.callId, scope: found.scope });
    return true;
  }

  private withdrawWhere(match: (waiter: Waiter) => boolean, reason: ApprovalWithdrawal, message: string): void {
    const ids = [...this.waiters].filter(([, waiter]) => match(waiter)).map(([id]) => id);
    for (const id of ids) this.withdraw(id, reason, message, false);
    if (ids.length > 0) this.emit();
  }

  private withdraw(requestId: string, reason: ApprovalWithdrawal, message: string, notify = true): void {
    const waiter = this.waiters.get(requestId);
    if (!waiter) return;
    this.waiters.delete(requestId);
    this.log?.append({ type: 'approval_withdrawn', stepId: waiter.stepId, callId: waiter.callId, requestId, reason, message });
    waiter.settle({ decision: 'cancelled', reason: message });
    this.logger.info('approval cancelled', { requestId, callId: waiter.callId, reason: message });
    if (notify) this.emit();
  }

  private emit(): void {
    const pending = this.pending();
    for (const listener of [...this.listeners]) {
      try {
        listener(pending);
      } catch (error) {
        this.logger.error('approval listener failed', { error: error instanceof Error ? error.message : String(error) });
      }
    }
  }
}

function abortReason(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  if (reason instanceof Error && reason.message) return reason.message;
  if (typeof reason === 'string' && reason) return reason;
  return 'aborted';
}

function safeString(value: unknown, key: string): string | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const field = (value as Record<string, unknown>)[key];
  return typeof field === 'string' ? field : undefined;
}
