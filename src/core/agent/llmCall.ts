import { LlmError, type ChatRequest, type ChatResponse } from '../llm/llmTypes';
import type { RunContext } from './runContext';

/**
 * Every LLM request of a run goes through here, so each one (purpose, step, models, attempts,
 * usage, outcome) lands in the event log and therefore in the trace and the panel.
 */
export async function callLlm(context: RunContext, request: Omit<ChatRequest, 'signal'>): Promise<ChatResponse> {
  const started = Date.now();
  const requestedModel = context.config['cortex.llm.model'];
  try {
    const response = await context.llm.chat({ ...request, signal: context.signal });
    context.log.append({
      type: 'llm_request',
      purpose: request.purpose,
      stepId: request.stepId,
      requestedModel: response.requestedModel,
      usedModel: response.usedModel,
      attempts: response.attempts.map((a) => ({ ...a })),
      ok: true,
      finishReason: response.finishReason,
      usage: response.usage,
      durationMs: Date.now() - started,
    });
    for (const note of response.notes) context.log.append({ type: 'log', level: 'info', message: note, stepId: request.stepId });
    if (response.droppedToolNames.length > 0) {
      context.log.append({
        type: 'log',
        level: 'warn',
        message: `Dropped ${response.droppedToolNames.length} tool call(s) whose name was empty or only symbols.`,
        stepId: request.stepId,
        data: { names: response.droppedToolNames },
      });
    }
    return response;
  } catch (error) {
    const llmError = error instanceof LlmError ? error : new LlmError('bad_response', (error as Error).message ?? String(error));
    context.log.append({
      type: 'llm_request',
      purpose: request.purpose,
      stepId: request.stepId,
      requestedModel,
      attempts: llmError.attempts.map((a) => ({ ...a })),
      ok: false,
      error: llmError.message,
      durationMs: Date.now() - started,
    });
    throw llmError;
  }
}

/** Errors that make every further LLM call pointless: the run stops instead of replanning. */
export function isFatalLlmError(error: unknown): boolean {
  return error instanceof LlmError && (error.kind === 'auth' || error.kind === 'unreachable' || error.kind === 'cancelled' || error.kind === 'not_found');
}
