import type { AccumulatedToolCall } from '../llm/llmTypes';
import { addToolCallEvent } from '../plan/planOperations';
import type { RunnableCall } from '../tools/toolPipeline';
import type { CheckCommandRun } from '../verify/postconditions';
import { VERIFIER_CALL_MARK } from '../verify/stepEvidence';
import type { RunContext } from './runContext';
import { runToolBatch } from './toolBatchRunner';

// A `command` check runs as a call of the step, through the very batch runner the step's own
// run_command calls go through (docs/design.md, “The verifier and how a step ends”): the same
// policy, approvals, sandbox, scrubbed environment, timeout, output cap and change recording. The
// call is marked as the verifier's in its audit, so it is evidence for the check and never taken
// for the step's own work. A denial by a person or by the policy fails the check with its reason.

/** A fresh id for the verifier's call, unique within the step. */
function checkCallId(context: RunContext, stepId: string): string {
  const used = new Set(context.log.state.steps.get(stepId)?.toolCalls.map((call) => call.id));
  let n = 1;
  while (used.has(`verify_${stepId}_${n}`)) n++;
  return `verify_${stepId}_${n}`;
}

/** Runs `command` for a check of running step `stepId` and says what happened. */
export async function runCheckCommand(context: RunContext, stepId: string, command: string, checkIndex: number): Promise<CheckCommandRun> {
  const tool = context.registry.get('run_command');
  if (!tool) return { ran: false, output: '', reason: 'run_command is not available in this run (an untrusted workspace runs no commands)' };
  const { log } = context;
  const step = log.state.steps.get(stepId);
  const id = checkCallId(context, stepId);
  const args = { command };
  const argumentsJson = JSON.stringify(args);
  const turn = Math.max(0, ...(step?.toolCalls.map((call) => call.turn) ?? [])) + 1;
  const audit = { [VERIFIER_CALL_MARK]: checkIndex };
  const accumulated: AccumulatedToolCall = {
    id,
    providerId: false,
    index: 0,
    name: tool.name,
    rawArguments: argumentsJson,
    decoded: { ok: true, value: args, doubleEncoded: false },
    arguments: args,
    isComplete: true,
    finishReason: null,
  };
  log.append(
    addToolCallEvent(log.state, stepId, {
      id,
      index: 0,
      turn,
      name: tool.name,
      requestedName: tool.name,
      nameResolution: 'exact',
      arguments: argumentsJson,
      rawArguments: argumentsJson,
      isComplete: true,
      finishReason: null,
      audit,
    }),
  );
  // Unvalidated: the tool's schema is checked right before it runs, as for any call.
  const call: RunnableCall = {
    disposition: 'run',
    call: accumulated,
    requestedName: tool.name,
    name: tool.name,
    nameResolution: 'exact',
    argumentsJson,
    audit,
    tool,
    args,
    validated: false,
  };
  // A denied check command fails its check; it never holds the step for a Retry.
  await runToolBatch({ ...context, holdDeniedGates: false }, stepId, [call]);
  const recorded = log.state.steps.get(stepId)?.toolCalls.find((c) => c.id === id);
  if (!recorded || recorded.status === 'pending' || recorded.status === 'awaiting_approval')
    return { callId: id, ran: false, output: '', reason: 'the command did not run (cancelled)' };
  const output = recorded.result ?? '';
  if (recorded.status === 'success') return { callId: id, ran: true, exitCode: recorded.exitCode ?? 0, output };
  if (recorded.exitCode !== undefined) return { callId: id, ran: true, exitCode: recorded.exitCode, output };
  const why = recorded.status === 'rejected' ? 'denied' : recorded.reason === 'policy_denied' ? 'refused by the policy' : 'it failed to run';
  return { callId: id, ran: false, output, reason: `${why}: ${output.replace(/^Error: /, '').split('\n')[0]}` };
}
