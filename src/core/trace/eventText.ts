import { stepDrifts } from '../plan/stepDrift';
import { endsTheRun } from '../llm/failoverPolicy';
import type { FileChange } from '../plan/changeSchema';
import { checkLine } from '../plan/checkText';
import type { RunEvent } from '../plan/events';
import type { PlanState } from '../plan/planTypes';
import { clip, oneLine } from '../text/clip';

export type EventTextLevel = 'info' | 'warn' | 'debug';

/** The log level a line about this event deserves (warnings for failures, debug for detail). */
export function eventTextLevel(event: RunEvent): EventTextLevel {
  if (event.type === 'log') return event.level === 'warn' || event.level === 'error' ? 'warn' : 'debug';
  if (event.type === 'llm_request') return event.ok ? 'debug' : 'warn';
  if (event.type === 'step_verified') return event.passed ? 'debug' : 'warn';
  if (event.type === 'step_audit' || event.type === 'tool_call_requested' || event.type === 'tool_call_completed') return 'debug';
  return 'info';
}

/**
 * One human-readable line per event (or none), shared by the CLI's progress output and the
 * extension's log channel, fed from the same events as the trace.
 */
export function formatEvent(event: RunEvent, state: PlanState, verbose = false): string | undefined {
  switch (event.type) {
    case 'run_started':
      return `cortex: run ${event.runId} with ${event.model} at ${event.baseUrl}${event.retryOf ? `\ncortex: retry of step ${event.retryOf.stepId} ("${oneLine(event.retryOf.description, 200)}") from run ${event.retryOf.runId}` : ''}`;
    case 'run_resumed': {
      const kept = state.stepOrder.filter((id) => state.steps.get(id)?.status === 'completed').length;
      const again = event.restartedStepIds.length ? `, ${event.restartedStepIds.join(', ')} start again` : '';
      return `cortex: run ${state.runId} resumed after seq ${event.fromSeq}: ${kept} completed step(s) kept${again}`;
    }
    case 'plan_created':
      // A streamed plan is said as it starts and again, with its size, once it is whole.
      if (event.partial) return `plan: ${event.title} (streaming)`;
      return state.stepOrder.length > 0 ? `plan: ${event.title} (${state.stepOrder.length} steps, whole)` : `plan: ${event.title}`;
    case 'step_added':
      return `  + ${event.stepId}${event.dependsOn.length ? ` (after ${event.dependsOn.join(', ')})` : ''}: ${event.description}${event.origin === 'replan' ? ' [replan]' : ''}`;
    case 'step_status_changed': {
      // A run-ending LLM error is said by the run's last line; the step only names the kind.
      const reason = !verbose && event.reason?.startsWith('llm_error: ') ? 'llm_error' : event.reason;
      return `  ${event.stepId} → ${event.status}${reason ? ` (${reason})` : ''}`;
    }
    case 'tool_call_requested':
      return `    ${event.stepId} ⏳ ${event.call.name || event.call.requestedName}(${truncate(event.call.arguments, 120)})`;
    case 'tool_call_completed': {
      const call = state.steps.get(event.stepId)?.toolCalls.find((c) => c.id === event.callId);
      if (event.reusedFrom) return `    ${event.stepId} ↺ ${call?.name ?? event.callId}: not run, reuses the result of the identical call ${event.reusedFrom}`;
      const mark = event.status === 'success' ? '✓' : event.status === 'rejected' ? '⊘' : '✗';
      return `    ${event.stepId} ${mark} ${call?.name ?? event.callId}: ${truncate(event.result.replace(/\s+/g, ' '), 120)}`;
    }
    case 'plan_approval_requested':
      return event.kind === 'plan'
        ? `plan approval: ${event.steps.length} step(s) proposed${event.attempt > 1 ? ` (rewrite ${event.attempt - 1})` : ''}`
        : `plan approval: the redesign of ${event.failedStepId ?? 'a step'} needs more than the approved plan`;
    case 'plan_approval_answered':
      return `plan approval: ${event.approved ? 'approved' : 'denied'}${event.source ? ` (${event.source})` : ''}${event.feedback ? `: ${oneLine(event.feedback, 200)}` : ''}`;
    case 'tool_call_awaiting_approval':
      return `    ${event.stepId} ⏸ awaiting approval: ${event.approval.reason}`;
    case 'step_verified': {
      // A failed check or claim is said under its step, one line each (docs/design.md, “The verifier and how a step ends”).
      const failedChecks = (event.checks ?? []).filter((check) => !check.passed).map((check) => `    ${event.stepId} ${oneLine(checkLine(check), 400)}`);
      if (event.passed) return verbose ? `  ${event.stepId} ${event.verdict ?? 'verified'}: ${event.reason}` : undefined;
      return [`  ${event.stepId} verification failed: ${event.reason}`, ...failedChecks].join('\n');
    }
    case 'step_audit':
      // Drift is said whatever the verbosity: a person approved a plan and this left it (docs/design.md, “Step scopes and plan approval”).
      if (event.kind === 'drift') return `    ${event.stepId} ⚠ drift: ${oneLine(String(event.data.what), 400)} (outside the approved scope)`;
      return verbose ? `    ${event.stepId} ${event.kind}: ${truncate(JSON.stringify(event.data), 400)}` : undefined;
    case 'subgraph_replaced':
      return `  replan ${event.replan.attempt} of ${event.replan.maxAttempts} for ${event.replan.failedStepId}: ${event.replan.action}${event.replan.action === 'redesign' ? ` (${event.replan.replacedStepIds.join(', ')} → ${event.replan.newStepIds.join(', ')})` : ''}`;
    case 'plan_discarded':
      return `  plan discarded${event.stepIds.length ? ` (${event.stepIds.join(', ')})` : ''}: ${event.reason}`;
    case 'files_changed': {
      // A change by a call that drifted and was approved went through outside the step's scope (docs/design.md, “Step scopes and plan approval”).
      const step = state.steps.get(event.stepId);
      const drifted = step ? stepDrifts(step).some((drift) => drift.callId === event.callId && !drift.paths) : false;
      return `    ${event.stepId} changed ${listed(event.changes.map(changeText))}${drifted ? ' (outside the approved scope)' : ''}`;
    }
    case 'files_reverted': {
      const put = event.files.filter((f) => f.folder === 'created' || f.folder === 'removed' || (f.folder === undefined && f.from !== f.to)).length;
      const what = event.reason === 'undo' ? `undid the revert of ${event.stepIds.join(', ')}` : `reverted ${event.stepIds.join(', ')} (${event.reason})`;
      return `  ${what}: ${put} path${put === 1 ? '' : 's'} put back${event.conflicts.length ? `; left alone: ${listed(event.conflicts.map((c) => `${c.path} (${c.reason.replace(/_/g, ' ')})`))}` : ''}`;
    }
    case 'log':
      // Which project instructions files the run follows is said even without --verbose (docs/design.md, “Project instructions”).
      // So is what a retry of a step carries over and runs (docs/design.md, “Retrying a step”).
      return verbose || event.level === 'warn' || event.level === 'error' || event.data?.kind === 'project_instructions' || event.data?.kind === 'retry_step'
        ? `  ${event.level}: ${event.message}`
        : undefined;
    case 'llm_request':
      if (!event.ok)
        return verbose || saidNowhereElse(event) ? `  ${event.purpose}${event.stepId ? ` ${event.stepId}` : ''} request failed: ${event.error}` : undefined;
      return verbose
        ? `  ${event.purpose}${event.stepId ? ` ${event.stepId}` : ''}: ${event.usedModel ?? event.requestedModel}${event.usedModel && event.usedModel !== event.requestedModel ? ` (failover from ${event.requestedModel})` : ''}, ${event.durationMs} ms, ${event.attempts.length} attempt(s)${event.finishReason ? `, finish ${event.finishReason}` : ''}`
        : undefined;
    case 'run_finished':
      return `run ${event.status}${event.error ? `: ${event.error}` : ''}`;
    default:
      return undefined;
  }
}

/**
 * Whether a failed request's error would go unsaid without its own line. Planner failures and
 * run-ending errors end the run, whose last line says them; a failed replan is reported by the
 * replanner, a failed summary by the answer. Executor and repair errors that the run survives are
 * said only here.
 */
function saidNowhereElse(event: Extract<RunEvent, { type: 'llm_request' }>): boolean {
  if (event.purpose === 'planner' || event.purpose === 'replanner' || event.purpose === 'aggregator') return false;
  const last = event.attempts.at(-1) as { errorKind?: string } | undefined;
  return !endsTheRun(last?.errorKind);
}

/** One change in a few words: `a.ts (new, +3 -0)`, `old.txt (deleted)`, `big.bin (modified, not restorable)`. */
function changeText(change: FileChange): string {
  const kind = change.directory ? `${change.kind === 'created' ? 'new' : change.kind} folder` : change.kind === 'created' ? 'new' : change.kind;
  const lines = change.added !== undefined && change.removed !== undefined ? `, +${change.added} -${change.removed}` : change.binary ? ', binary' : '';
  return `${change.path}${change.directory ? '/' : ''} (${kind}${lines}${change.restorable ? '' : ', not restorable'})`;
}

/** The first items, then how many more. */
function listed(items: string[], max = 5): string {
  return items.length <= max ? items.join(', ') : `${items.slice(0, max).join(', ')} and ${items.length - max} more`;
}

function truncate(text: string, max: number): string {
  return clip(text, max, { markerWithin: true });
}
