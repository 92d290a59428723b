import type { ChatMessage, Purpose, ToolSpec } from '../llm/llmTypes';
import { buildCompactionMessages, droppedTurnsMessage, summaryMessage } from './compaction';
import type { ContextBudget } from './contextBudget';
import { ContextExhaustedError } from './contextExhausted';
import { messagesOf, planFit, type ContextAction } from './degradationStages';
import { countMessageTokens, countPromptTokens, countPromptTokensSoon, promptTokensAtMost } from './tokenCounter';
import { MAX_RATIO } from './tokenCalibration';

// Fits one request into its budget before it is sent (docs/design.md, “Context budget and memory”): stages 1–3
// (degradationStages.ts), then stage 4, compaction, when turns had to go. The request's message
// list is replaced in place, so a step's conversation keeps the pruned and compacted form for its
// next turns. Every decision is reported (a `context_cost` audit), including "nothing to do".
// A prompt whose cheap upper bound (tokenCounter.ts: a token per UTF-8 byte where no exact count
// is known yet) is within the budget has nothing to do: it can be sent at once, and its exact
// count, which the audit, the usage estimate and the calibration need, made while it travels
// (countPromptTokensSoon).

/** The `context_cost` record of one request; token numbers are the endpoint's (estimated). */
export interface ContextCostRecord {
  purpose: Purpose;
  model: string;
  window: number;
  budget: number;
  tokensBefore: number;
  tokensAfter: number;
  actions: Array<ContextAction & { failed?: string }>;
  /** Reported ÷ counted tokens learned for the model (1 until the endpoint reported usage). */
  calibration: number;
  /** Set when the request was fitted again after the endpoint said the prompt was too long. */
  afterOverflow?: true;
  /** Set when the prompt could not be made to fit: the request is not sent. */
  exhausted?: true;
}

export interface FitRequest {
  purpose: Purpose;
  stepId?: string;
  messages: ChatMessage[];
  tools?: readonly ToolSpec[];
}

export interface ContextFitDeps {
  budget: ContextBudget;
  /** Writes the summary of dropped turns: one LLM request, purpose `compact`. */
  summarise(messages: ChatMessage[], stepId: string | undefined): Promise<string>;
  /** Errors after which a failed summary must not be papered over (cancel, a run-ending error). */
  mustPropagate(error: unknown): boolean;
  record(record: ContextCostRecord, stepId: string | undefined): void;
}

export interface FitOutcome {
  /** The prompt as sent, counted by our tokenizer (for usage estimates and calibration). */
  counted: number;
  record: ContextCostRecord;
}

/** Tokens a summary message may take (frame included): 15 % of the budget, at most 2,000. */
export function summaryAllowance(limit: number): number {
  return Math.max(64, Math.min(2_000, Math.floor(limit * 0.15)));
}
/** The summary's frame and the message overhead. */
const SUMMARY_FRAME_TOKENS = 64;

/** A fitted request: `settle()` counts it if that was left for later, reports its record once, and returns both. */
export interface PreparedFit {
  settle(): Promise<FitOutcome>;
  /**
   * The prompt is so far within its budget that no calibration learned from it or from the counts
   * still in flight could change a decision soon: its count need not hold anything up.
   */
  readonly roomy: boolean;
}

export interface FitRequestOptions {
  /** The endpoint found the prompt too long: shrink and compact it whatever our count says. */
  afterOverflow?: boolean;
}

/**
 * Fits the request. When the prompt is known to fit without counting it, nothing is counted or
 * reported until `settle()`, which the caller makes once the request is on its way.
 */
export async function prepareFit(deps: ContextFitDeps, request: FitRequest, options: FitRequestOptions = {}): Promise<PreparedFit> {
  const { budget } = deps;
  const atMost = options.afterOverflow ? Infinity : promptTokensAtMost(request.messages, request.tools);
  // Within limit ÷ MAX_RATIO the prompt fits under any calibration; closer to the limit, the counts
  // still in flight are waited for, so the decision uses everything learned so far.
  const roomy = atMost <= budget.limit(budget.model) / MAX_RATIO;
  if (!roomy) await budget.settled();
  const model = budget.model;
  if (atMost <= budget.countedLimit(model)) {
    let outcome: Promise<FitOutcome> | undefined;
    return { settle: () => (outcome ??= recordUnchanged(deps, request, model)), roomy };
  }
  const outcome = Promise.resolve(await fitRequest(deps, request, options));
  return { settle: () => outcome, roomy };
}

/** What fitRequest reports for a prompt that needed nothing. */
async function recordUnchanged(deps: ContextFitDeps, request: FitRequest, model: string): Promise<FitOutcome> {
  const { budget } = deps;
  const counted = await countPromptTokensSoon(request.messages, request.tools);
  const tokens = budget.estimate(counted, model);
  const record: ContextCostRecord = {
    purpose: request.purpose,
    model,
    window: budget.window(model),
    budget: budget.limit(model),
    tokensBefore: tokens,
    tokensAfter: tokens,
    actions: [],
    calibration: Math.round(budget.calibration.ratio(model) * 1000) / 1000,
  };
  deps.record(record, request.stepId);
  return { counted, record };
}

/** Fits the request now: counted, shrunk and compacted as needed, and reported. */
export async function fitRequest(deps: ContextFitDeps, request: FitRequest, options: FitRequestOptions = {}): Promise<FitOutcome> {
  const { budget } = deps;
  const model = budget.model;
  const limit = budget.countedLimit(model);
  const allowance = summaryAllowance(limit);
  const canCompact = request.purpose !== 'compact';
  const plan = planFit(request.messages, { limit, tools: request.tools, summaryAllowance: allowance, forceShrink: options.afterOverflow && canCompact });
  const actions: ContextCostRecord['actions'] = [...plan.actions];
  const oldSummary = plan.shape.summary;

  if (plan.dropped.length > 0 && canCompact && plan.fits) {
    const maxSummaryTokens = allowance - SUMMARY_FRAME_TOKENS;
    const turns = plan.dropped.length + previousTurns(oldSummary);
    let summary: ChatMessage;
    let failed: string | undefined;
    try {
      const text = await deps.summarise(
        buildCompactionMessages({ dropped: plan.dropped, previousSummary: oldSummary, maxSummaryTokens, maxPromptTokens: limit }),
        request.stepId,
      );
      summary = text.trim()
        ? summaryMessage(text, turns, maxSummaryTokens)
        : droppedTurnsMessage(turns, 'the summary came back empty', maxSummaryTokens, oldSummary);
      if (!text.trim()) failed = 'empty summary';
    } catch (error) {
      if (deps.mustPropagate(error)) throw error;
      failed = (error as Error).message;
      summary = droppedTurnsMessage(turns, failed, maxSummaryTokens, oldSummary);
    }
    plan.shape.summary = summary;
    actions.push({ kind: 'compact', count: plan.dropped.length, tokensSaved: -countMessageTokens(summary), ...(failed ? { failed } : {}) });
  }

  const messages = messagesOf(plan.shape);
  // Turns are never dropped without a summary in their place: if compaction could not run, the
  // prompt does not fit.
  const counted = plan.dropped.length > 0 && !(canCompact && plan.fits) ? Infinity : countPromptTokens(messages, request.tools);
  const estimate = (tokens: number) => budget.estimate(tokens, model);
  const record: ContextCostRecord = {
    purpose: request.purpose,
    model,
    window: budget.window(model),
    budget: budget.limit(model),
    tokensBefore: estimate(plan.tokensBefore),
    tokensAfter: estimate(Number.isFinite(counted) ? counted : plan.tokensAfter),
    actions: actions.map((a) => ({ ...a, tokensSaved: Math.round(a.tokensSaved * budget.calibration.ratio(model)) })),
    calibration: Math.round(budget.calibration.ratio(model) * 1000) / 1000,
    ...(options.afterOverflow ? { afterOverflow: true as const } : {}),
  };
  if (counted > limit) {
    record.exhausted = true;
    deps.record(record, request.stepId);
    throw new ContextExhaustedError(
      `The ${request.purpose} prompt does not fit the context window of ${model}: about ${record.tokensAfter.toLocaleString('en-US')} tokens after pruning and compaction, for a budget of ${record.budget.toLocaleString('en-US')} (window ${record.window.toLocaleString('en-US')} minus the reserved reply). Split the work into smaller steps, or raise cortex.context.windowTokens if the model's window is larger.`,
      record.tokensAfter,
      record.budget,
    );
  }
  // Only the kept form goes on; unchanged lists are left alone (cheap for the common case).
  if (actions.length > 0) request.messages.splice(0, request.messages.length, ...messages);
  deps.record(record, request.stepId);
  return { counted, record };
}

/** How many turns an earlier summary already stands for. */
function previousTurns(summary: ChatMessage | undefined): number {
  const match = summary && typeof summary.content === 'string' ? /^<compacted_history turns="(\d+)"/.exec(summary.content) : null;
  return match ? Number(match[1]) : 0;
}
