import type { EventOf, NewRunEvent, RetryOf, RunEvent } from '../plan/events';
import { checkPlanInvariants, PlanGraph, PlanInvariantError } from '../plan/planGraph';
import type { PlanState, StepState } from '../plan/planTypes';
import { foldEvents } from '../plan/reducer';
import { stepAuditEvent } from '../plan/stepAudits';
import { highestStepNumber } from './resumePoint';

// Retrying one failed or blocked step of a finished run (docs/design.md, “Retrying a run”,
// “Retrying a step”), decided from that run's events alone. The old trace is untrusted: its events
// were each checked against the schema by the trace reader; here the run as a whole is checked
// (one run_started first, one run_finished, nothing but reverts after it, a plan without cycles
// or dangling dependencies) before anything of it is carried into the new run.

export class NotRetryableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NotRetryableError';
  }
}

export interface RetryPoint {
  /** The old run's first event (its task and workspace). */
  started: EventOf<'run_started'>;
  retryOf: RetryOf;
  /** The old run's plan as the new run starts from it: appended right after its run_started. */
  carry: NewRunEvent[];
  /** Completed steps carried over as completed: they do not run again. */
  carriedStepIds: string[];
  /** The retried step, what it needs that did not complete, what depends on it, and steps that never ran: they run. */
  rerunStepIds: string[];
  /** Other failed or blocked steps: carried over as they ended (retry them in turn). */
  keptStepIds: string[];
  /** New step ids (of replans) continue after every id the old run used. */
  highestStepNumber: number;
}

/** Events a finished run may record after its run_finished: the reverts a person asked for later. */
const AFTER_FINISH = new Set<RunEvent['type']>(['files_reverted']);

function checkFinishedRun(events: readonly RunEvent[]): { started: EventOf<'run_started'>; finished: EventOf<'run_finished'> } {
  const started = events[0];
  if (started?.type !== 'run_started') throw new NotRetryableError('the trace does not start with run_started: it is not the trace of a Cortex run');
  const finishedAt = events.findIndex((event) => event.type === 'run_finished');
  if (finishedAt < 0)
    throw new NotRetryableError(
      `run ${started.runId} has not finished (no run_finished line): only a step of a finished run can be retried; an interrupted run is resumed instead`,
    );
  const finished = events[finishedAt] as EventOf<'run_finished'>;
  const stray = events.find((event, i) => (i > 0 && event.type === 'run_started') || (i > finishedAt && !AFTER_FINISH.has(event.type)));
  if (stray)
    throw new NotRetryableError(
      `the trace of run ${started.runId} has a ${stray.type} event at seq ${stray.seq} where none can be: it is not a run Cortex wrote`,
    );
  if (finished.status === 'completed') throw new NotRetryableError(`run ${started.runId} completed: it has no failed or blocked step to retry`);
  return { started, finished };
}

function liveStepToRetry(state: PlanState, runId: string, stepId: string): StepState {
  const step = state.steps.get(stepId);
  if (!step) {
    const replaced = state.replacedSteps.get(stepId);
    if (replaced)
      throw new NotRetryableError(
        `step ${stepId} of run ${runId} was replaced by a replan${replaced.replacedBy ? ` (by ${replaced.replacedBy.newStepIds.join(', ') || 'nothing'})` : ''}: retry a step of the plan as it ended`,
      );
    throw new NotRetryableError(`run ${runId} has no step "${stepId}"`);
  }
  if (step.status !== 'failed' && step.status !== 'blocked')
    throw new NotRetryableError(`step ${stepId} ("${step.description}") is ${step.status.replace('_', ' ')}: only a failed or blocked step can be retried`);
  return step;
}

/** The steps that run again: the retried one, the unfinished steps it needs, and everything downstream of them. */
function stepsToRerun(state: PlanState, stepId: string): Set<string> {
  const graph = PlanGraph.fromState(state);
  const roots = new Set<string>();
  const toVisit = [stepId];
  while (toVisit.length > 0) {
    const id = toVisit.pop()!;
    if (roots.has(id)) continue;
    roots.add(id);
    for (const dep of state.steps.get(id)!.dependsOn) if (state.steps.get(dep)!.status !== 'completed') toVisit.push(dep);
  }
  const rerun = new Set(roots);
  for (const root of roots) for (const id of graph.downstream(root)) rerun.add(id);
  // Steps that never started (a cancel, a run cap, an unfinished dependency) are work still to do.
  for (const id of state.stepOrder) {
    const step = state.steps.get(id)!;
    if (step.status === 'not_started' || step.status === 'in_progress' || (step.status === 'blocked' && step.startedAt === undefined)) rerun.add(id);
  }
  return rerun;
}

/** What a carried step keeps of its end: its status, output and verdict; never its calls or file changes. */
function carriedEnd(step: StepState, fromRunId: string): NewRunEvent[] {
  const events: NewRunEvent[] = [stepAuditEvent(step.id, { kind: 'carried_over', data: { fromRunId, fromStatus: step.status } })];
  if (step.output !== undefined) events.push({ type: 'step_output', stepId: step.id, output: step.output });
  if (step.verdict) events.push({ type: 'step_verified', stepId: step.id, ...structuredClone(step.verdict) });
  events.push({
    type: 'step_status_changed',
    stepId: step.id,
    status: step.status,
    ...(step.status !== 'completed' && step.endReason !== undefined ? { reason: step.endReason } : {}),
    ...(step.blockedBy !== undefined ? { blockedBy: step.blockedBy } : {}),
  });
  return events;
}

/**
 * How a new run retries `stepId` of the finished run recorded in `events`; throws
 * NotRetryableError saying why it cannot (not finished, completed, no such step, not failed or
 * blocked, a trace Cortex did not write).
 */
export function findRetryPoint(events: readonly RunEvent[], stepId: string): RetryPoint {
  const { started } = checkFinishedRun(events);
  const state = foldEvents(events);
  try {
    checkPlanInvariants(state);
  } catch (error) {
    if (error instanceof PlanInvariantError) throw new NotRetryableError(`the plan in the trace of run ${started.runId} is broken: ${error.message}`);
    throw error;
  }
  const retried = liveStepToRetry(state, started.runId, stepId);
  const rerun = stepsToRerun(state, stepId);
  const steps = state.stepOrder.map((id) => state.steps.get(id)!);
  const carry: NewRunEvent[] = [{ type: 'plan_created', title: state.title }];
  for (const step of steps) {
    carry.push({
      type: 'step_added',
      stepId: step.id,
      description: step.description,
      ...(step.expects ? { expects: structuredClone(step.expects) } : {}),
      // What the step may touch is part of its contract: a retry approved as a plan approves it again.
      ...(step.scope ? { scope: structuredClone(step.scope) } : {}),
      dependsOn: [...step.dependsOn],
      lineage: step.lineage,
      // A step that runs again gets a fresh replan budget.
      replanAttempts: rerun.has(step.id) ? 0 : step.replanAttempts,
      origin: step.origin,
      ...(step.waitsFor ? { waitsFor: { ...step.waitsFor } } : {}),
    });
  }
  const carried = steps.filter((step) => !rerun.has(step.id));
  for (const step of carried) carry.push(...carriedEnd(step, started.runId));
  return {
    started,
    retryOf: { runId: started.runId, stepId, description: retried.description },
    carry,
    carriedStepIds: carried.filter((step) => step.status === 'completed').map((step) => step.id),
    rerunStepIds: steps.filter((step) => rerun.has(step.id)).map((step) => step.id),
    keptStepIds: carried.filter((step) => step.status !== 'completed').map((step) => step.id),
    highestStepNumber: highestStepNumber(state),
  };
}
