import type { ChatMessage } from '../llm/llmTypes';
import { selectStepTools } from '../mcp/stepToolSelection';
import { addToolCallEvent } from '../plan/planOperations';
import { uniqueCallIds } from './uniqueCallIds';
import { BUDGET_EXCEEDED } from '../usage/runCaps';
import { limitToolCalls } from '../tools/toolCallLimits';
import { limitConversationImages } from '../tools/toolImages';
import { prepareToolCalls } from '../tools/toolPipeline';
import { RepeatDetector } from '../tools/repeatDetector';
import { callLlm } from './llmCall';
import { replayedToolName } from './replayedToolName';
import type { RunContext } from './runContext';
import { buildStepMessages } from './stepPrompt';
import { readTextToolCalls } from './textToolCallTurn';
import { noticeToollessAnswer } from './toolSupportNotice';
import { runToolBatch } from './toolBatchRunner';
import { stepAuditEvent } from '../plan/stepAudits';

export type StepEndReason =
  | 'answered'
  | 'max_steps_exceeded'
  | 'all_tool_calls_failed'
  | 'repeated_tool_call'
  | 'approval_denied'
  | 'context_exhausted'
  | 'budget_exceeded'
  | 'llm_error';

export interface StepOutcome {
  output: string;
  endReason: StepEndReason;
}

export const MAX_STEPS_MESSAGE = 'Stopped: exceeded max_steps_per_turn.';
export const ALL_FAILED_MESSAGE = 'All tool calls failed. Please check the error messages and try again.';

/**
 * One step's tool loop: model → tool calls → results → model, until the model answers without
 * tool calls (its text is the step's output) or a limit stops it. Every call is recorded as
 * `pending` when requested and completed only by a real result, so the verifier can judge it.
 * LLM errors propagate (the scheduler decides between failing the step and stopping the run).
 */
export async function executeStep(context: RunContext, stepId: string): Promise<StepOutcome> {
  const { log, config, features } = context;
  // The project's instructions (the run's, then the step's nearest AGENTS.md), then the memories that match the step.
  const messages: ChatMessage[] = await features.instructions.addToStep(buildStepMessages(log.state, stepId, features.contextBudget.promptLimit()), stepId);
  await features.memory.addRelevant(messages, stepId);
  // With many MCP tools, a step is sent only those its description needs (docs/design.md, “MCP tools”).
  const selection = selectStepTools(context.registry, log.state.steps.get(stepId)?.description ?? '', config['cortex.mcp.maxTools']);
  if (selection.audit) log.append(stepAuditEvent(stepId, { kind: 'mcp_tools', data: selection.audit }));
  const registry = selection.registry;
  const tools = registry.specs();
  const repeats = new RepeatDetector(3);
  const maxTurns = config['cortex.limits.maxStepsPerTurn'];
  // Repair calls made by the pipeline are recorded like every other LLM request.
  const recordingLlm = { chat: (request: Parameters<typeof callLlm>[1]) => callLlm(context, request) };

  for (let turn = 1; turn <= maxTurns; turn++) {
    // Past a run cap (docs/design.md, “Usage and cost”) the step stops between turns, never in the middle of one.
    const overBudget = context.overBudget();
    if (overBudget) return { output: `Stopped: ${overBudget}.`, endReason: BUDGET_EXCEEDED };
    const batchNumber = context.nextBatch();
    const answered = await callLlm(context, { purpose: 'executor', stepId, messages, tools, stream: true, batch: batchNumber });
    const fromText = readTextToolCalls(answered, {
      mode: config['cortex.llm.textToolCalls'],
      offered: tools,
      schemaOf: (name) => registry.parameters(name),
      batch: batchNumber,
    });
    if (fromText.audit) log.append(stepAuditEvent(stepId, { kind: 'text_tool_calls', data: { turn, ...fromText.audit } }));
    const response = fromText.response;
    // Only a step's first answer tells: once a step has called a tool, tools reach the model.
    if (turn === 1) noticeToollessAnswer(context, stepId, response, tools);
    if (response.toolCalls.length === 0) return { output: response.content, endReason: 'answered' };

    const usedIds = new Set(log.state.steps.get(stepId)?.toolCalls.map((c) => c.id));
    let calls = uniqueCallIds(response.toolCalls, usedIds, turn);
    if (!config['cortex.execution.parallelToolCalls']) calls = calls.slice(0, 1);
    const limited = limitToolCalls(calls, config['cortex.limits.maxToolCallsPerTurn']);
    log.append(
      stepAuditEvent(stepId, {
        kind: 'tool_calls_per_turn',
        data: { turn, ...limited.audit, parallelToolCalls: config['cortex.execution.parallelToolCalls'], received: response.toolCalls.length },
      }),
    );

    const prepared = await prepareToolCalls(limited.kept, { registry, config, llm: recordingLlm, signal: context.signal, stepId, logger: context.logger });
    if (prepared.audit.resolutions.length > 0 || prepared.audit.nameRepair || prepared.audit.argumentRepair || prepared.audit.truncated)
      log.append(stepAuditEvent(stepId, { kind: 'tool_pipeline', data: { turn, ...prepared.audit } }));

    for (const call of prepared.calls) {
      log.append(
        addToolCallEvent(log.state, stepId, {
          id: call.call.id,
          index: call.call.index,
          turn,
          name: call.name,
          requestedName: call.requestedName,
          nameResolution: call.nameResolution,
          arguments: call.argumentsJson,
          rawArguments: call.call.rawArguments,
          isComplete: call.call.isComplete,
          finishReason: call.call.finishReason,
          reason: call.disposition === 'unparseable' ? call.reason : undefined,
          audit: call.audit,
          source: call.call.source,
        }),
      );
      if (call.disposition === 'unparseable') {
        log.append({
          type: 'log',
          level: 'warn',
          stepId,
          message: `Tool call ${call.call.id} (${call.requestedName || 'no name'}) was not executed: its arguments never became valid JSON (${call.parseError ?? 'invalid_json'}). It stays pending and is left out of the conversation.`,
          data: { parseError: call.parseError, finishReason: call.call.finishReason, rawArgumentsBytes: call.call.rawArguments.length },
        });
      }
    }

    const replayed = prepared.calls.filter((c) => c.disposition !== 'unparseable');
    if (replayed.length === 0) {
      // Nothing can be answered: the model's turn produced only half-received calls. The step
      // ends here; those calls stay pending and the verifier fails the step.
      return { output: response.content || "The model's tool calls were cut off before their arguments were complete.", endReason: 'answered' };
    }
    messages.push({
      role: 'assistant',
      content: response.content || null,
      tool_calls: replayed.map((c) => ({
        id: c.call.id,
        type: 'function' as const,
        function: { name: replayedToolName(c.name || c.requestedName), arguments: c.argumentsJson },
      })),
    });

    const batch = await runToolBatch(context, stepId, prepared.calls);
    if (context.signal.aborted) throw context.signal.reason ?? new Error('cancelled');
    messages.push(...batch.toolMessages);
    // The images tools returned stay in the conversation within the per-request caps, newest first.
    limitConversationImages(messages);
    if (batch.gateDenied) return { output: 'Blocked: a required approval was denied.', endReason: 'approval_denied' };
    if (batch.executedCount > 0 && batch.failedExecutions === batch.executedCount && batch.executedCount === replayed.length) {
      return { output: ALL_FAILED_MESSAGE, endReason: 'all_tool_calls_failed' };
    }
    const repeated = repeats.observe(replayed.map((c) => `${c.name}:${c.argumentsJson}`).join('\n'));
    if (repeated) return { output: repeated.reason, endReason: 'repeated_tool_call' };
  }
  return { output: MAX_STEPS_MESSAGE, endReason: 'max_steps_exceeded' };
}
