import { checkRecordedWorkspace, WorkspaceMismatchError } from '../files/recordedWorkspace';
import { AgentRun, type AgentRunOptions, type RunResult } from './agentRun';
import type { EventLog } from '../plan/eventLog';
import type { RunEvent } from '../plan/events';
import { createBuiltinRegistry } from '../tools/workspace/builtinTools';
import { readTrace } from '../trace/traceReader';
import { NotResumableError, findResumePoint, type ResumePoint } from '../resume/resumePoint';
import { revertInterruptedChanges } from '../resume/revertInterrupted';
import { acquireRunLock, type LockOptions, type RunLock } from '../resume/runLock';
import { repairTraceTail } from '../resume/traceTail';

// Resuming an interrupted run from its trace (docs/design.md, “Resuming a run”), shared by the CLI and the
// extension: take the run's lock, make the trace valid JSON Lines again, read it, check the
// workspace, then continue the run with the same reducer state, appending to the same file.

export interface ResumeRequest {
  traceFile: string;
  /** The folder the resumer works in: it must be the run's own. */
  workspaceRoot: string;
  lock?: LockOptions;
}

/** A trace ready to resume: its lock is held until `lock.release()`. */
export interface OpenedResume {
  traceFile: string;
  /** The folder the resumer gave (checked to be the run's own): the resumed run acts on this one. */
  workspaceRoot: string;
  lock: RunLock;
  events: RunEvent[];
  point: ResumePoint;
  /** What was repaired or noticed while reading the trace (a cut-off line, a recovered lock). */
  notices: string[];
}

export { WorkspaceMismatchError };

/** The run's recorded workspace must be the folder it is resumed in (both must exist). */
export async function checkSameWorkspace(recorded: string, current: string): Promise<void> {
  await checkRecordedWorkspace(recorded, current, 'resume it');
}

/**
 * Takes the run's lock, then reads where it resumes. Throws RunLockedError, TraceError,
 * NotResumableError or WorkspaceMismatchError with a clear message (the lock is released then).
 */
export async function openResume(request: ResumeRequest): Promise<OpenedResume> {
  const lock = await acquireRunLock(request.traceFile, request.lock);
  try {
    const notices: string[] = [];
    if (lock.recoveredFrom) notices.push(`the run's lock was left by process ${lock.recoveredFrom.pid}, which is no longer running; it was taken over`);
    const repair = await repairTraceTail(request.traceFile);
    if (repair.message) notices.push(repair.message);
    const { events, warnings } = await readTrace(request.traceFile);
    // "did not finish" is the point of a resume, not news.
    notices.push(...warnings.filter((warning) => !warning.includes('no run_finished')));
    const point = findResumePoint(events);
    await checkSameWorkspace(point.started.workspace, request.workspaceRoot);
    return { traceFile: request.traceFile, workspaceRoot: request.workspaceRoot, lock, events, point, notices };
  } catch (error) {
    await lock.release();
    throw error;
  }
}

export type ResumedRunOptions = Omit<AgentRunOptions, 'task' | 'runId' | 'log' | 'workspaceRoot'> & {
  /** Protected paths the person confirmed for the put-back of the restarted steps' changes. */
  confirmedRestores?: readonly string[];
};

/** A resumed run, ready to go: `agent` answers cancel and retry while `run()` drives it. */
export interface ResumedRun {
  agent: AgentRun;
  run(): Promise<RunResult>;
}

/**
 * Prepares the opened run to continue: deals with the files the restarted steps had changed, then
 * builds its AgentRun. `log` must hold the recorded events (EventLog `history`) and the caller's
 * listeners, the trace writer appending to the same file among them.
 */
export async function prepareResumedRun(opened: OpenedResume, log: EventLog, options: ResumedRunOptions): Promise<ResumedRun> {
  const { point } = opened;
  if (log.state.lastSeq !== point.lastSeq) throw new Error('the log must start from the events of the opened trace');
  for (const notice of opened.notices) log.append({ type: 'log', level: 'warn', message: notice });
  const registry = createBuiltinRegistry(options.config, { trusted: true });
  const partialChanges = await revertInterruptedChanges({
    log,
    workspaceRoot: opened.workspaceRoot,
    stepIds: point.restartStepIds,
    checkpointsDir: options.checkpointsDir,
    maxFileBytes: options.config['cortex.checkpoints.maxFileBytes'],
    protectedPaths: options.config['cortex.policy.protectedPaths'],
    confirmed: options.confirmedRestores,
    runFiles: [opened.traceFile, opened.lock.file, ...(options.checkpointsExclude ?? [])],
    isReadOnlyTool: (name) => registry.get(name)?.readOnly ?? false,
  });
  const agent = new AgentRun({ ...options, task: point.started.task, runId: point.started.runId, workspaceRoot: opened.workspaceRoot, log });
  return {
    agent,
    run: () => agent.resume({ fromSeq: point.lastSeq, restartedStepIds: point.restartStepIds, replanStepIds: point.replanStepIds, partialChanges }),
  };
}

export { NotResumableError };
