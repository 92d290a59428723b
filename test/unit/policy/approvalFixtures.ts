import { EventLog } from '../../../src/core/plan/eventLog';
import { ApprovalBroker, type ApprovalBrokerOptions, type ApprovalRequestInput } from '../../../src/core/policy/approvalBroker';

// A real broker over a real run log, for tests of whoever answers approvals (CLI, status bar,
// notifications, panel). A request needs its call recorded first, as in a run.

export interface ApprovalRun {
  log: EventLog;
  broker: ApprovalBroker;
  /** Records the call (its step started if new), then asks approval for it. */
  ask(callId: string, options?: Partial<Omit<ApprovalRequestInput, 'callId'>>): ReturnType<ApprovalBroker['request']>;
}

export function approvalRun(options: Omit<ApprovalBrokerOptions, 'log'> = {}): ApprovalRun {
  const log = new EventLog();
  log.append({ type: 'run_started', runId: 'run-test', task: 'test', workspace: '/w', model: 'm', baseUrl: 'http://127.0.0.1/v1' });
  const broker = new ApprovalBroker({ ...options, log });
  return {
    log,
    broker,
    ask(callId, given = {}) {
      const input = {
        stepId: 's1',
        toolName: 'run_command',
        argumentsJson: JSON.stringify({ command: `echo ${callId}` }),
        required: false,
        denyEffect: 'continue' as const,
        reason: 'run_command needs approval',
        ...given,
        callId,
      };
      if (!log.state.steps.has(input.stepId)) {
        log.append({
          type: 'step_added',
          stepId: input.stepId,
          description: input.stepId,
          dependsOn: [],
          lineage: input.stepId,
          replanAttempts: 0,
          origin: 'planner',
        });
        log.append({ type: 'step_status_changed', stepId: input.stepId, status: 'in_progress' });
      }
      const args = input.argumentsJson;
      if (!log.state.steps.get(input.stepId)!.toolCalls.some((call) => call.id === callId)) {
        log.append({
          type: 'tool_call_requested',
          stepId: input.stepId,
          call: {
            id: callId,
            index: 0,
            turn: 1,
            name: input.toolName,
            requestedName: input.toolName,
            nameResolution: 'exact',
            arguments: args,
            rawArguments: args,
            isComplete: true,
            finishReason: 'tool_calls',
          },
        });
      }
      return broker.request(input);
    },
  };
}
