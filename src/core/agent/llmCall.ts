import type { PreparedFit } from '../context/contextFitter';
import { endsTheRun, failoverNotice } from '../llm/failoverPolicy';
import { LlmError, type ChatRequest, type ChatResponse, type RetryWait } from '../llm/llmTypes';
import { requestUsage } from '../usage/requestUsage';
import type { RunContext } from './runContext';
import { countImageParts } from '../tools/toolImages';

/** Failovers already announced, per run ("from→to"), so a run says each one once (keyed by the run's log: a step runs with its own copy of the context). */
const announcedFailovers = new WeakMap<RunContext['log'], Set<string>>();

/**
 * Every LLM request of a run goes through here. First the prompt is fitted into the model's
 * context budget (docs/design.md, “Context budget and memory”; `request.messages` is replaced in place by the pruned or
 * compacted form); then it is sent, and each request (purpose, step, models, attempts, usage,
 * cost, outcome) lands in the event log and therefore in the trace and the panel. A provider's
 * context-overflow error gets one compaction and one retry, never a failover.
 */
export async function callLlm(context: RunContext, request: Omit<ChatRequest, 'signal'>): Promise<ChatResponse> {
  return context.features.contextBudget.fitAndSend(
    request,
    {
      summarise: async (messages, stepId) => (await callLlm(context, { purpose: 'compact', stepId, messages, stream: false })).content,
      mustPropagate: (error) => context.signal.aborted || isFatalLlmError(error),
    },
    (fitted) => sendAndRecord(context, request, fitted),
  );
}

async function sendAndRecord(context: RunContext, request: Omit<ChatRequest, 'signal'>, fitted: PreparedFit): Promise<ChatResponse> {
  const started = Date.now();
  const pending = context.llm.chat({ ...request, signal: context.signal, onRetry: (wait) => announceRateLimitWait(context, request, wait) });
  // A prompt known to fit is counted (and its context_cost reported) while it travels, not before.
  const settling = fitted.settle();
  try {
    const response = await pending;
    // With the endpoint's own usage the count only calibrates (and may still be under way).
    const countedPrompt = await context.features.contextBudget.answered(fitted, settling, response.usedModel, response.usage);
    context.log.append({
      type: 'llm_request',
      purpose: request.purpose,
      stepId: request.stepId,
      requestedModel: response.requestedModel,
      usedModel: response.usedModel,
      attempts: response.attempts.map((a) => ({ ...a })),
      ok: true,
      finishReason: response.finishReason,
      usage: requestUsage(response, countedPrompt, context.config['cortex.llm.pricing']),
      ...(response.reasoning !== undefined ? { reasoning: response.reasoning } : {}),
      durationMs: Date.now() - started,
    });
    announceFailover(context, request, response);
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
    await context.features.contextBudget.failed(fitted, settling);
    const llmError = error instanceof LlmError ? error : new LlmError('bad_response', (error as Error).message ?? String(error));
    context.log.append({
      type: 'llm_request',
      purpose: request.purpose,
      stepId: request.stepId,
      requestedModel: llmError.attempts[0]?.model ?? context.config['cortex.llm.model'],
      attempts: llmError.attempts.map((a) => ({ ...a })),
      ok: false,
      error: llmError.message,
      durationMs: Date.now() - started,
    });
    // A model that cannot take images refuses the whole request: say what to change (docs/design.md, “MCP tools”).
    const images = llmError.kind === 'bad_request' ? countImageParts(request.messages) : 0;
    if (images > 0)
      context.log.append({
        type: 'log',
        level: 'warn',
        stepId: request.stepId,
        message: `The endpoint refused a request that carried ${images} image(s) returned by tools; if the model does not take images, set cortex.llm.images to "off" (it is "${context.config['cortex.llm.images']}").`,
        data: { kind: 'images_refused', images },
      });
    throw llmError;
  }
}

/**
 * A rate-limited request waits before its retry, sometimes for most of a minute: said as it
 * starts (a warning the CLI prints and the panel logs), so the run does not look stuck.
 */
function announceRateLimitWait(context: RunContext, request: Omit<ChatRequest, 'signal'>, wait: RetryWait): void {
  if (wait.kind !== 'rate_limit') return;
  const seconds = Math.round(wait.delayMs / 100) / 10;
  context.log.append({
    type: 'log',
    level: 'warn',
    message: `rate limited by the endpoint; retrying in ${seconds} s (retry ${wait.retry} of ${wait.of})`,
    stepId: request.stepId,
    data: { kind: 'llm_retry', purpose: request.purpose, model: wait.model, delayMs: wait.delayMs, retry: wait.retry, of: wait.of },
  });
}

/**
 * A request that left its model for a fallback is said once per run as a warning (CLI and log
 * channel show it); the client then keeps using the fallback, so later requests do not repeat it.
 */
function announceFailover(context: RunContext, request: Omit<ChatRequest, 'signal'>, response: ChatResponse): void {
  const skipped = new Map<string, { status?: number; error?: string }>();
  // The last failure per model is the one that made the client move on (earlier ones were retried).
  for (const a of response.attempts) if (!a.ok && a.model !== response.usedModel) skipped.set(a.model, { status: a.status, error: a.error });
  if (skipped.size === 0) return;
  const key = `${[...skipped.keys()].join(',')}→${response.usedModel}`;
  const said = announcedFailovers.get(context.log) ?? new Set<string>();
  announcedFailovers.set(context.log, said);
  if (said.has(key)) return;
  said.add(key);
  const baseUrl = context.config['cortex.llm.baseUrl'];
  const where = context.config['cortex.llm.provider'] === 'vscode-lm' ? 'in VS Code' : `at ${baseUrl}`;
  context.log.append({
    type: 'log',
    level: 'warn',
    message: failoverNotice(
      [...skipped].map(([model, failure]) => ({ model, ...failure })),
      response.usedModel,
      where,
    ),
    stepId: request.stepId,
    data: { failover: { from: [...skipped.keys()], to: response.usedModel, baseUrl, purpose: request.purpose } },
  });
}

/** Errors that make every further LLM call pointless: the run stops instead of replanning. */
export function isFatalLlmError(error: unknown): boolean {
  return error instanceof LlmError && endsTheRun(error.kind);
}
