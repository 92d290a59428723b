import { prepareFit, type ContextCostRecord, type PreparedFit } from '../context/contextFitter';
import { ContextExhaustedError } from '../context/contextExhausted';
import { isContextOverflow, overflowFacts, overflowModel } from '../context/contextOverflow';
import { endsTheRun, failoverNotice } from '../llm/failoverPolicy';
import { LlmError, type ChatRequest, type ChatResponse, type RetryWait } from '../llm/llmTypes';
import { requestUsage } from '../usage/requestUsage';
import type { RunContext } from './runContext';
import { stepAuditEvent } from '../plan/stepAudits';
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
  const fitted = await prepareFit(budgetDeps(context), request);
  try {
    return await sendAndRecord(context, request, fitted);
  } catch (error) {
    if (!isContextOverflow(error) || request.purpose === 'compact') throw error;
    context.budget.learnOverflow(overflowModel(error, context.budget.model), (await fitted.settle()).counted, overflowFacts(error.message));
    const refitted = await prepareFit(budgetDeps(context), request, { afterOverflow: true });
    try {
      return await sendAndRecord(context, request, refitted);
    } catch (again) {
      if (!isContextOverflow(again)) throw again;
      const { record } = await refitted.settle();
      throw new ContextExhaustedError(
        `The endpoint still found the ${request.purpose} prompt too long after compacting it: ${again.message}`,
        record.tokensAfter,
        record.budget,
      );
    }
  }
}

/** What the context fitter needs from the run: the budget, a way to summarise, and where to report. */
function budgetDeps(context: RunContext) {
  return {
    budget: context.budget,
    summarise: async (messages: ChatRequest['messages'], stepId: string | undefined) =>
      (await callLlm(context, { purpose: 'compact', stepId, messages, stream: false })).content,
    mustPropagate: (error: unknown) => context.signal.aborted || isFatalLlmError(error),
    record: (record: ContextCostRecord, stepId: string | undefined) => {
      // Requests of the run as a whole (planner, aggregator) have no step to file the audit under.
      if (stepId !== undefined) context.log.append(stepAuditEvent(stepId, { kind: 'context_cost', data: { ...record } }));
      else
        context.log.append({
          type: 'log',
          level: 'debug',
          message: `context_cost ${record.purpose}: ${record.tokensAfter} of ${record.budget} tokens`,
          data: { kind: 'context_cost', ...record },
        });
    },
  };
}

async function sendAndRecord(context: RunContext, request: Omit<ChatRequest, 'signal'>, fitted: PreparedFit): Promise<ChatResponse> {
  const started = Date.now();
  const pending = context.llm.chat({ ...request, signal: context.signal, onRetry: (wait) => announceRateLimitWait(context, request, wait) });
  // A prompt known to fit is counted (and its context_cost reported) while it travels, not before.
  const settling = fitted.settle();
  try {
    const response = await pending;
    context.budget.model = response.usedModel;
    // With the endpoint's own usage the count only calibrates. For a prompt far within its budget
    // the response goes on at once, even while the count is still being made (the counting
    // thread's first load); requests nearer the limit and the run's end wait for it.
    let countedPrompt = 0;
    const reported = response.usage;
    const calibrate = ({ counted }: { counted: number }) => {
      if (reported) context.budget.observeUsage(response.usedModel, counted, reported.promptTokens);
    };
    if (reported && fitted.roomy) context.budget.track(settling.then(calibrate));
    else {
      const outcome = await settling;
      calibrate(outcome);
      countedPrompt = outcome.counted;
    }
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
    // The prompt's context_cost is reported before the request's outcome, unless the count is
    // still being made for a roomy prompt (then the run's end waits for it).
    if (fitted.roomy) context.budget.track(settling);
    else await settling.catch(() => undefined);
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
