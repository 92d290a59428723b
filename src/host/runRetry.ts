import type { LlmErrorKind } from '../core/llm/llmTypes';
import type { RunEvent } from '../core/plan/events';
import { foldEvents } from '../core/plan/reducer';
import type { TraceResumability } from '../core/resume/traceStatus';
import type { RecentRun } from './runIndex';

// "Retry" on a failed run (the failure notification, the panel, the Cortex view): what it means
// for one run, decided from its events alone (docs/design.md, "Retrying a run"). Events come from a
// trace file, which is untrusted: only strings are read from them and nothing is run on their say.

/** Error kinds that come from the endpoint, its key, its model or the way to it: settings or a retry fix them. */
const ENDPOINT_KINDS: ReadonlySet<string> = new Set<LlmErrorKind>([
  'unreachable',
  'auth',
  'bad_request',
  'not_found',
  'rate_limit',
  'server',
  'stream_broken',
  'timeout',
]);

/** A failed LLM request of the run that the endpoint settings, the key or a retry can fix. */
export interface EndpointFailure {
  kind: LlmErrorKind;
  /** The HTTP status of its last attempt, when it had one. */
  status?: number;
  /** True for 401/403: the key is what to change. */
  keyProblem: boolean;
}

/** The run's last failed LLM request that failed because of the endpoint, if any. */
export function endpointFailure(events: readonly RunEvent[]): EndpointFailure | undefined {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i];
    if (event.type !== 'llm_request' || event.ok) continue;
    const last = event.attempts.at(-1);
    const kind = last?.errorKind;
    if (typeof kind !== 'string' || !ENDPOINT_KINDS.has(kind)) continue;
    const status = typeof last?.status === 'number' ? last.status : undefined;
    return { kind: kind as LlmErrorKind, ...(status !== undefined ? { status } : {}), keyProblem: kind === 'auth' || status === 401 || status === 403 };
  }
  return undefined;
}

/** What Retry does for one run. */
export type RetryPlan =
  /** Still running in this window: its panel is shown instead. */
  | { action: 'show'; runId: string }
  /** Stopped without finishing and resumable here: it goes on from its trace. */
  | { action: 'resume'; traceFile: string; workspace: string }
  /**
   * Finished without success: the same task starts again as a new run. `completedSteps` > 0 asks
   * first, and offers to retry only `failedStep` (docs/design.md, “Retrying a step”) when the run finished with one.
   */
  | { action: 'restart'; task: string; workspace: string; completedSteps: number; failedStep?: { stepId: string; description: string } }
  | { action: 'none'; reason: string };

export interface RetryFacts {
  runId: string;
  /** Driven by this window right now. */
  live: boolean;
  events: readonly RunEvent[];
  traceFile?: string;
  /** Whether its trace can be resumed in this window (traceResumability over the open folders). */
  resumability: TraceResumability;
}

export function retryPlan(facts: RetryFacts): RetryPlan {
  if (facts.live) return { action: 'show', runId: facts.runId };
  const started = facts.events[0];
  if (started?.type !== 'run_started') return { action: 'none', reason: 'its trace does not start with the run’s task' };
  if (facts.resumability.resumable && facts.traceFile) return { action: 'resume', traceFile: facts.traceFile, workspace: started.workspace };
  const finished = facts.events.findLast((event) => event.type === 'run_finished');
  if (finished?.type === 'run_finished' && finished.status === 'completed') return { action: 'none', reason: 'it completed' };
  const state = foldEvents(facts.events);
  const completedSteps = [...state.steps.values()].filter((step) => step.status === 'completed').length;
  const steps = state.stepOrder.map((id) => state.steps.get(id)!);
  // The step to offer: the first that failed, else the first blocked on its own (not by another step).
  const failed = finished ? (steps.find((s) => s.status === 'failed') ?? steps.find((s) => s.status === 'blocked' && !s.blockedBy)) : undefined;
  return {
    action: 'restart',
    task: started.task,
    workspace: started.workspace,
    completedSteps,
    ...(completedSteps > 0 && failed ? { failedStep: { stepId: failed.id, description: failed.description } } : {}),
  };
}

/** The run Retry means without an argument: the newest failed (or interrupted) run of the list. */
export function lastRetryableRun(recent: readonly RecentRun[], isLiveHere: (runId: string) => boolean): RecentRun | undefined {
  return recent.find((run) => run.status === 'failed' || run.status === 'cancelled' || (run.status === 'running' && !isLiveHere(run.runId)));
}
