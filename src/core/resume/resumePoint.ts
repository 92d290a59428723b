import type { EventOf, RunEvent } from '../plan/events';
import type { PlanState, StepState } from '../plan/planTypes';
import { foldEvents } from '../plan/reducer';

// Where an interrupted run picks up (docs/design.md, “Resuming a run”), decided from its recorded events alone:
// the plan is folded by the one reducer; completed steps stay completed; steps that were running
// start again; failed steps whose replan had not happened yet are replanned.

export class NotResumableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NotResumableError';
  }
}

export interface ResumePoint {
  started: EventOf<'run_started'>;
  /** The folded plan as the interrupted run left it. */
  state: PlanState;
  /** Seq of the last recorded event. */
  lastSeq: number;
  /** Steps that were running (or waiting for the Retry of a denied approval): they run again. */
  restartStepIds: string[];
  /** Failed steps still in the plan: their replan was under way when the run stopped. */
  replanStepIds: string[];
}

/** A failed step stays in the plan without a replan only when one of these ended it. */
const NOT_REPLANNED = new Set(['cancelled', 'budget_exceeded']);

function wasRunning(step: StepState): boolean {
  if (step.status === 'in_progress') return true;
  // A denied required gate blocks its step while it waits for Retry; it has no verdict yet.
  return step.status === 'blocked' && step.endReason === 'approval_denied' && step.verdict === undefined;
}

function awaitsReplan(step: StepState): boolean {
  // A fatal LLM error records `llm_error: <message>` and stops the run instead of replanning.
  return step.status === 'failed' && !NOT_REPLANNED.has(step.endReason ?? '') && !(step.endReason ?? '').startsWith('llm_error: ');
}

/** The resume point of a run's events; throws NotResumableError saying why there is none. */
export function findResumePoint(events: readonly RunEvent[]): ResumePoint {
  const started = events[0];
  if (started?.type !== 'run_started') throw new NotResumableError('the trace does not start with run_started: it is not the trace of a Cortex run');
  const finished = events.find((event): event is EventOf<'run_finished'> => event.type === 'run_finished');
  if (finished) {
    throw new NotResumableError(
      `run ${started.runId} already finished (${finished.status}, run_finished at seq ${finished.seq}); only an interrupted run can be resumed — start a new run instead`,
    );
  }
  const state = foldEvents(events);
  const live = state.stepOrder.map((id) => state.steps.get(id)!);
  return {
    started,
    state,
    lastSeq: events[events.length - 1].seq,
    restartStepIds: live.filter(wasRunning).map((step) => step.id),
    replanStepIds: live.filter(awaitsReplan).map((step) => step.id),
  };
}

/** The largest n of the run's step ids `s<n>` (live and replaced), so new ids never reuse one. */
export function highestStepNumber(state: PlanState, prefix = 's'): number {
  let highest = 0;
  for (const id of [...state.steps.keys(), ...state.replacedSteps.keys()]) {
    const match = id.startsWith(prefix) ? /^\d+$/.exec(id.slice(prefix.length)) : null;
    if (match) highest = Math.max(highest, Number(match[0]));
  }
  return highest;
}
