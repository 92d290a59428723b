import type { AgentRun, RunResult } from '../core/agent/agentRun';
import type { EventLog } from '../core/plan/eventLog';
import type { RunEvent } from '../core/plan/events';
import type { AnswerResult, ApprovalBroker } from '../core/policy/approvalBroker';
import type { PanelApprovalAnswer, RunSource } from '../panel/runSource';
import type { RunApprovals } from './approvalAttention';

/** A run started in this extension host: its log, approvals and agent, kept while the window lives. */
export interface LiveRun {
  readonly runId: string;
  readonly task: string;
  readonly log: EventLog;
  readonly broker: ApprovalBroker;
  readonly agent: AgentRun;
  readonly traceFile: string;
  result?: Pick<RunResult, 'status' | 'answer' | 'error'>;
}

/** Answers through the one broker, whichever channel (panel or notification) the answer came from. */
export function answerApproval(broker: ApprovalBroker, answer: PanelApprovalAnswer, source: 'panel' | 'notification'): AnswerResult {
  return broker.answer({ ...answer, source });
}

/** A run's broker as the queue ApprovalAttention follows; its answers come from the notification. */
export function brokerApprovals(broker: ApprovalBroker): RunApprovals {
  return {
    pending: () => broker.pending(),
    onDidChange: (listener) => broker.onDidChange(() => listener()),
    answer: (request, decision) =>
      answerApproval(broker, { requestId: request.requestId, callId: request.callId, argsHash: request.argsHash, decision }, 'notification'),
  };
}

/** A RunSource over a live run (the panel's view of it). */
export function liveRunSource(run: LiveRun): RunSource {
  return {
    runId: run.runId,
    title: run.task,
    traceFile: run.traceFile,
    isLive: () => run.result === undefined,
    events: () => run.log.events,
    subscribe: (listener: (event: RunEvent) => void) => run.log.subscribe((event) => listener(event)),
    answer: (answer) => answerApproval(run.broker, answer, 'panel'),
    answerPlan: (answer) => run.broker.plans.answer({ ...answer, source: 'panel' }),
    cancel: (reason) => {
      if (run.result) return { ok: false, reason: `the run has already ${run.result.status === 'cancelled' ? 'been cancelled' : 'finished'}` };
      run.agent.cancel(reason);
      return { ok: true };
    },
    retryStep: (stepId) => (run.result ? { accepted: false, reason: 'the run has already finished' } : run.agent.retryStep(stepId)),
  };
}
