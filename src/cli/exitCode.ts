import type { RunResult } from '../core/agent/agentRun';
import { endsTheRun } from '../core/llm/failoverPolicy';
import type { RunEvent } from '../core/plan/events';

/** The CLI's exit codes, as documented in USAGE. */
export const EXIT = {
  completed: 0,
  incomplete: 1,
  usage: 2,
  /** The endpoint, key, account quota or model could not be used before any step ran. */
  llmSetup: 3,
} as const;

/**
 * 0 when every step completed; 3 when the planner's request failed for a reason no retry fixes
 * (endpoint unreachable, key rejected, account out of quota, model missing with no fallback that works), so no step ran;
 * otherwise 1 (failed or blocked steps, a plan the model could not produce, a cancel).
 */
export function exitCodeFor(result: RunResult, events: readonly RunEvent[]): number {
  if (result.status === 'completed') return EXIT.completed;
  if (result.status === 'failed' && result.snapshot.steps.length === 0) {
    const planner = events.find((e): e is Extract<RunEvent, { type: 'llm_request' }> => e.type === 'llm_request' && e.purpose === 'planner' && !e.ok);
    const kind = (planner?.attempts.at(-1) as { errorKind?: string } | undefined)?.errorKind;
    if (kind !== 'cancelled' && endsTheRun(kind)) return EXIT.llmSetup;
  }
  return EXIT.incomplete;
}
