import { checkRecordedWorkspace } from '../files/recordedWorkspace';
import type { EventLog } from '../plan/eventLog';
import type { NewRunEvent } from '../plan/events';
import { findRetryPoint, NotRetryableError, type RetryPoint } from '../resume/retryPoint';
import { readTrace } from '../trace/traceReader';
import { AgentRun, type AgentRunOptions, type RunResult } from './agentRun';

// Retrying a failed or blocked step of a finished run (docs/design.md, “Retrying a step”), shared by
// the CLI and the extension: the old trace is read as untrusted input and never written; a new run,
// with a trace of its own, carries its plan and completed steps over and runs the rest.

export interface RetryStepRequest {
  /** The finished run's trace: read, never modified. */
  traceFile: string;
  stepId: string;
  /** The folder the new run works in: it must be the old run's own. */
  workspaceRoot: string;
}

/** A finished run's trace, checked, and how a new run retries one of its steps. */
export interface OpenedRetry {
  traceFile: string;
  workspaceRoot: string;
  point: RetryPoint;
  /** What was noticed while reading the old trace: warnings in the new one. */
  notices: string[];
}

export { NotRetryableError };

/** Reads and checks the old run. Throws TraceError, NotRetryableError or WorkspaceMismatchError with a clear message. */
export async function openRetryStep(request: RetryStepRequest): Promise<OpenedRetry> {
  const { events, warnings } = await readTrace(request.traceFile);
  const point = findRetryPoint(events, request.stepId);
  await checkRecordedWorkspace(point.started.workspace, request.workspaceRoot, 'retry a step of it');
  return { traceFile: request.traceFile, workspaceRoot: request.workspaceRoot, point, notices: warnings };
}

export type RetryStepRunOptions = Omit<AgentRunOptions, 'task' | 'log' | 'workspaceRoot' | 'stepNumbersUsed'>;

/** The new run, ready to go: `agent` answers cancel while `run()` drives it. */
export interface RetryStepRun {
  agent: AgentRun;
  run(): Promise<RunResult>;
}

/** Builds the new run on an empty `log` (a new trace): the old run's task, in the same folder. */
export function prepareRetryStepRun(opened: OpenedRetry, log: EventLog, options: RetryStepRunOptions): RetryStepRun {
  if (log.state.lastSeq !== -1) throw new Error('a retried step runs in a new run: the log must be empty');
  const { point } = opened;
  const agent = new AgentRun({ ...options, task: point.started.task, workspaceRoot: opened.workspaceRoot, log, stepNumbersUsed: point.highestStepNumber });
  const carry: NewRunEvent[] = [
    ...opened.notices.map((message): NewRunEvent => ({ type: 'log', level: 'warn', message })),
    { type: 'log', level: 'info', message: carriedText(point), data: { kind: 'retry_step', ...point.retryOf } },
    ...point.carry,
  ];
  return { agent, run: () => agent.start({ retryOf: point.retryOf, carry }) };
}

/** Which steps the new run takes over and which it runs, in one line. */
function carriedText(point: RetryPoint): string {
  const parts = [`carried over from run ${point.retryOf.runId}, not run again: ${point.carriedStepIds.join(', ') || 'no step'}`];
  parts.push(`run now: ${point.rerunStepIds.join(', ')}`);
  if (point.keptStepIds.length > 0) parts.push(`kept as they ended: ${point.keptStepIds.join(', ')}`);
  return `Retry of step ${point.retryOf.stepId}: ${parts.join('; ')}`;
}
