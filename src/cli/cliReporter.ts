import type { RunEvent } from '../core/plan/events';
import type { PlanState } from '../core/plan/planTypes';

/** Human-readable progress lines for the terminal, fed from the same events as the trace. */
export function formatEventForCli(event: RunEvent, state: PlanState): string | undefined {
  switch (event.type) {
    case 'run_started':
      return `cortex: run ${event.runId} with ${event.model} at ${event.baseUrl}`;
    case 'plan_created':
      return `plan: ${event.title}`;
    case 'step_added':
      return `  + ${event.stepId}${event.dependsOn.length ? ` (after ${event.dependsOn.join(', ')})` : ''}: ${event.description}${event.origin === 'replan' ? ' [replan]' : ''}`;
    case 'step_status_changed':
      return `  ${event.stepId} → ${event.status}${event.reason ? ` (${event.reason})` : ''}`;
    case 'tool_call_requested':
      return `    ${event.stepId} ⏳ ${event.call.name || event.call.requestedName}(${truncate(event.call.arguments, 120)})`;
    case 'tool_call_completed': {
      const call = state.steps.get(event.stepId)?.toolCalls.find((c) => c.id === event.callId);
      const mark = event.status === 'success' ? '✓' : event.status === 'rejected' ? '⊘' : '✗';
      return `    ${event.stepId} ${mark} ${call?.name ?? event.callId}: ${truncate(event.result.replace(/\s+/g, ' '), 120)}`;
    }
    case 'tool_call_awaiting_approval':
      return `    ${event.stepId} ⏸ awaiting approval: ${event.approval.reason}`;
    case 'step_verified':
      return event.passed ? undefined : `  ${event.stepId} verification failed: ${event.reason}`;
    case 'subgraph_replaced':
      return `  replan ${event.replan.attempt} of ${event.replan.maxAttempts} for ${event.replan.failedStepId}: ${event.replan.action}${event.replan.action === 'redesign' ? ` (${event.replan.replacedStepIds.join(', ')} → ${event.replan.newStepIds.join(', ')})` : ''}`;
    case 'log':
      return event.level === 'warn' || event.level === 'error' ? `  ${event.level}: ${event.message}` : undefined;
    case 'llm_request':
      return event.ok ? undefined : `  ${event.purpose} request failed: ${event.error}`;
    case 'run_finished':
      return `run ${event.status}${event.error ? `: ${event.error}` : ''}`;
    default:
      return undefined;
  }
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
