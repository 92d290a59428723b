import { createHash, randomUUID } from 'node:crypto';
import { silentLogger, type Logger } from '../ports';

// Pending approvals (docs/design.md §13) and their answers, whoever gives them: the panel, the CLI or a
// notification. A request is bound to one call id and the sha256 of the exact argument JSON that
// will run; an answer must quote both, so an answer to a stale, cancelled, already-answered or
// unknown request is ignored and logged, and a double click can never approve twice. Requests
// wait until answered or cancelled: closing the panel loses nothing (`pending()` shows them again).

export interface ApprovalRequest {
  /** Unpredictable (crypto.randomUUID): a webview or CLI cannot guess another request's id. */
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
}

export interface ApprovalAnswer {
  requestId: string;
  callId: string;
  argsHash: string;
  decision: 'approve' | 'deny';
  feedback?: string;
  /** Who answered: 'panel', 'cli', 'notification'... (logged, passed on in the outcome). */
  source?: string;
}

export type ApprovalOutcome =
  | { decision: 'approve'; source?: string }
  | { decision: 'deny'; feedback?: string; source?: string }
  | { decision: 'cancelled'; reason: string };

export interface ApprovalBrokerOptions {
  logger?: Logger;
  /** Request id generator; defaults to crypto.randomUUID. */
  newId?: () => string;
}

type EntryState = 'pending' | 'approved' | 'denied' | 'cancelled';

interface Entry {
  request: ApprovalRequest;
  state: EntryState;
  settle: (outcome: ApprovalOutcome) => void;
}

/** Answered/cancelled requests remembered so a late answer is reported as such, not as unknown. */
const MAX_SETTLED = 1000;
const MAX_FEEDBACK_CHARS = 4000;

/** sha256 (hex) of the exact argument JSON string. */
export function hashArguments(argumentsJson: string): string {
  return createHash('sha256').update(argumentsJson, 'utf8').digest('hex');
}

export class ApprovalBroker {
  private readonly entries = new Map<string, Entry>();
  private readonly listeners = new Set<(pending: ApprovalRequest[]) => void>();
  private readonly logger: Logger;
  private readonly newId: () => string;

  constructor(options: ApprovalBrokerOptions = {}) {
    this.logger = options.logger ?? silentLogger;
    this.newId = options.newId ?? randomUUID;
  }

  /**
   * Opens a request for one call. The outcome resolves once: approve, deny (with feedback) or
   * cancelled (signal aborted, cancelAll, or a newer request for the same call superseding it).
   */
  request(
    input: Omit<ApprovalRequest, 'requestId' | 'argsHash'>,
    signal?: AbortSignal,
  ): { request: ApprovalRequest; outcome: Promise<ApprovalOutcome> } {
    if (!input.callId || !input.stepId || !input.toolName) throw new TypeError('an approval request needs a stepId, a callId and a toolName');
    if (typeof input.argumentsJson !== 'string') throw new TypeError('an approval request needs the exact argument JSON string');
    const requestId = this.newId();
    if (this.entries.has(requestId)) throw new Error(`approval request id ${requestId} is already in use`);
    const request: ApprovalRequest = Object.freeze({
      requestId,
      stepId: input.stepId,
      callId: input.callId,
      toolName: input.toolName,
      argumentsJson: input.argumentsJson,
      argsHash: hashArguments(input.argumentsJson),
      required: input.required,
      denyEffect: input.denyEffect,
      reason: input.reason,
    });

    for (const entry of this.entries.values()) {
      if (entry.state === 'pending' && entry.request.callId === request.callId && entry.request.stepId === request.stepId) {
        this.finish(entry, 'cancelled', { decision: 'cancelled', reason: 'superseded by a newer approval request for the same call' });
      }
    }

    let resolve!: (outcome: ApprovalOutcome) => void;
    const outcome = new Promise<ApprovalOutcome>((done) => (resolve = done));
    if (signal?.aborted) {
      // Remembered as cancelled so a late answer is reported as such.
      this.entries.set(requestId, { request, state: 'cancelled', settle: () => {} });
      this.forgetOldSettled();
      resolve({ decision: 'cancelled', reason: abortReason(signal) });
      return { request, outcome };
    }
    const onAbort = () => {
      const entry = this.entries.get(requestId);
      if (entry?.state === 'pending') this.finish(entry, 'cancelled', { decision: 'cancelled', reason: abortReason(signal!) });
    };
    const entry: Entry = {
      request,
      state: 'pending',
      settle: (result) => {
        signal?.removeEventListener('abort', onAbort);
        resolve(result);
      },
    };
    this.entries.set(requestId, entry);
    signal?.addEventListener('abort', onAbort, { once: true });
    this.logger.info('approval requested', { requestId, stepId: request.stepId, callId: request.callId, tool: request.toolName, required: request.required });
    this.emit();
    return { request, outcome };
  }

  /** Applies one answer if it matches a pending request exactly; otherwise ignores and logs it. Never throws. */
  answer(answer: ApprovalAnswer): { accepted: boolean; reason?: string } {
    const rejected = (reason: string) => {
      this.logger.warn('approval answer ignored', {
        reason,
        requestId: safeString(answer, 'requestId'),
        callId: safeString(answer, 'callId'),
        source: safeString(answer, 'source'),
      });
      return { accepted: false, reason };
    };
    if (!answer || typeof answer !== 'object') return rejected('malformed answer');
    if (answer.decision !== 'approve' && answer.decision !== 'deny') return rejected(`invalid decision ${JSON.stringify(answer.decision)}`);
    const entry = typeof answer.requestId === 'string' ? this.entries.get(answer.requestId) : undefined;
    if (!entry) return rejected('unknown approval request');
    if (entry.state === 'cancelled') return rejected('the request was cancelled');
    if (entry.state !== 'pending') return rejected(`the request was already answered (${entry.state})`);
    if (answer.callId !== entry.request.callId) return rejected('the answer names a different call');
    if (answer.argsHash !== entry.request.argsHash) return rejected('stale answer: the arguments differ from the ones awaiting approval');

    const source = typeof answer.source === 'string' && answer.source ? answer.source : undefined;
    if (answer.decision === 'approve') {
      this.finish(entry, 'approved', source ? { decision: 'approve', source } : { decision: 'approve' });
    } else {
      const feedback = typeof answer.feedback === 'string' ? answer.feedback.trim().slice(0, MAX_FEEDBACK_CHARS) : '';
      const outcome: ApprovalOutcome = { decision: 'deny' };
      if (feedback) outcome.feedback = feedback;
      if (source) outcome.source = source;
      this.finish(entry, 'denied', outcome);
    }
    this.logger.info('approval answered', { requestId: entry.request.requestId, callId: entry.request.callId, decision: answer.decision, source });
    return { accepted: true };
  }

  /** "Approve all (N)" / "Deny all": answers the listed requests that are still pending; returns how many were accepted. */
  answerAll(decision: 'approve' | 'deny', requestIds: string[], feedback?: string, source?: string): number {
    let accepted = 0;
    for (const requestId of new Set(Array.isArray(requestIds) ? requestIds : [])) {
      const request = this.entries.get(requestId)?.request;
      const answer: ApprovalAnswer = { requestId, callId: request?.callId ?? '', argsHash: request?.argsHash ?? '', decision };
      if (feedback !== undefined) answer.feedback = feedback;
      if (source !== undefined) answer.source = source;
      if (this.answer(answer).accepted) accepted++;
    }
    return accepted;
  }

  /** Cancels one pending request (e.g. its step was cancelled). Returns false if it was not pending. */
  cancel(requestId: string, reason: string): boolean {
    const entry = this.entries.get(requestId);
    if (entry?.state !== 'pending') return false;
    this.finish(entry, 'cancelled', { decision: 'cancelled', reason });
    return true;
  }

  /** Requests still waiting for an answer, oldest first. */
  pending(): ApprovalRequest[] {
    return [...this.entries.values()].filter((entry) => entry.state === 'pending').map((entry) => entry.request);
  }

  /** Called with the pending list after every change; returns the unsubscribe function. */
  onDidChange(listener: (pending: ApprovalRequest[]) => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  /** Resolves every pending outcome as cancelled (the run was cancelled). */
  cancelAll(reason: string): void {
    const pending = [...this.entries.values()].filter((entry) => entry.state === 'pending');
    if (pending.length === 0) return;
    for (const entry of pending) this.finish(entry, 'cancelled', { decision: 'cancelled', reason }, false);
    this.emit();
  }

  private finish(entry: Entry, state: Exclude<EntryState, 'pending'>, outcome: ApprovalOutcome, notify = true): void {
    entry.state = state;
    entry.settle(outcome);
    if (outcome.decision === 'cancelled') {
      this.logger.info('approval cancelled', { requestId: entry.request.requestId, callId: entry.request.callId, reason: outcome.reason });
    }
    this.forgetOldSettled();
    if (notify) this.emit();
  }

  private forgetOldSettled(): void {
    let settled = 0;
    for (const entry of this.entries.values()) if (entry.state !== 'pending') settled++;
    for (const [id, entry] of this.entries) {
      if (settled <= MAX_SETTLED) break;
      if (entry.state !== 'pending') {
        this.entries.delete(id);
        settled--;
      }
    }
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
