import type { RunEvent } from '../core/plan/events';
import type { AnswerResult } from '../core/policy/approvalBroker';
import type { ApprovalScope } from '../core/plan/rememberedApproval';
import type { PlanAnswerResult } from '../core/policy/planApprovalBroker';

/** Run ids come back from webview state, globalState and trace files: accept only file-name-safe ids. */
export function isRunId(value: unknown): value is string {
  return typeof value === 'string' && /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/.test(value);
}

/** An approval answer as the panel forwards it (the broker checks the request, callId and argsHash). */
export interface PanelApprovalAnswer {
  requestId: string;
  callId: string;
  argsHash: string;
  decision: 'approve' | 'deny';
  feedback?: string;
  /** 'run' / 'workspace': remembered beyond this call (docs/design.md, “Remembered approvals”). */
  scope?: ApprovalScope;
}

/**
 * What a panel shows and controls: a live run (events keep coming, approvals and cancel work) or a
 * finished run read back from its trace file (everything read-only).
 */
export interface RunSource {
  readonly runId: string;
  readonly title: string;
  /** True while the run is in progress. */
  isLive(): boolean;
  /** All events so far, seq-ordered from 0. */
  events(): readonly RunEvent[];
  /** New events as they are appended; returns an unsubscribe function. */
  subscribe(listener: (event: RunEvent) => void): () => void;
  /** Applies an approval answer; what waits is in the events (docs/design.md, “Approvals”). */
  answer(answer: PanelApprovalAnswer): AnswerResult;
  /** Applies a plan approval's answer (docs/design.md, “Step scopes and plan approval”); absent: nothing to answer. */
  answerPlan?(answer: { requestId: string; approved: boolean; feedback?: string }): PlanAnswerResult;
  cancel(reason: string): { ok: boolean; reason?: string };
  retryStep(stepId: string): { accepted: boolean; reason?: string };
  /** The JSONL trace on disk, when there is one. */
  readonly traceFile?: string;
}

/** A finished run replayed from its events (a trace file): nothing to answer or cancel. */
export function traceRunSource(runId: string, events: readonly RunEvent[], traceFile?: string): RunSource {
  const started = events.find((event) => event.type === 'run_started');
  const finished = events.some((event) => event.type === 'run_finished');
  const notLive = { ok: false, reason: 'this run is not running in this window (it was loaded from its trace)' };
  return {
    runId,
    title: started?.type === 'run_started' ? started.task : runId,
    traceFile,
    isLive: () => false,
    events: () => events,
    subscribe: () => () => undefined,
    answer: () => ({ accepted: false, reason: 'run_over', message: notLive.reason }),
    cancel: () => (finished ? { ok: false, reason: 'the run has already finished' } : notLive),
    retryStep: () => ({ accepted: false, reason: notLive.reason }),
  };
}
