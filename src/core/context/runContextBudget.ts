import type { FlatConfig } from '../config/configSchema';
import type { ChatMessage, ChatRequest } from '../llm/llmTypes';
import type { EventLog } from '../plan/eventLog';
import { stepAuditEvent } from '../plan/stepAudits';
import { ContextBudget } from './contextBudget';
import { ContextExhaustedError } from './contextExhausted';
import { prepareFit, type ContextCostRecord, type FitOutcome, type PreparedFit } from './contextFitter';
import { isContextOverflow, overflowFacts, overflowModel } from './contextOverflow';

// The context feature's part of one run (docs/design.md, “Context budget and memory”): it owns the
// run's budget, fits every LLM request into it before it is sent, learns from the endpoint's usage
// and overflow errors, and reports each fit as a `context_cost` record. The agent's LLM call asks
// it; it never calls the agent: what it needs of a request (sending it, summarising dropped turns)
// is handed to it with the request.

/** What fitting one request needs from the caller, who knows the request's step and signal. */
export interface FitHelpers {
  /** Writes the summary of dropped turns: one LLM request, purpose `compact`. */
  summarise(messages: ChatMessage[], stepId: string | undefined): Promise<string>;
  /** Errors after which a failed summary must not be papered over (cancel, a run-ending error). */
  mustPropagate(error: unknown): boolean;
}

type FittedRequest = Omit<ChatRequest, 'signal'>;

export class RunContextBudget {
  private readonly budget: ContextBudget;

  constructor(
    config: Pick<FlatConfig, 'cortex.context.windowTokens' | 'cortex.context.reserveOutputTokens' | 'cortex.llm.model'>,
    private readonly log: EventLog,
  ) {
    this.budget = new ContextBudget(
      { windowTokens: config['cortex.context.windowTokens'], reserveOutputTokens: config['cortex.context.reserveOutputTokens'] },
      config['cortex.llm.model'],
    );
  }

  /** Tokens (our tokenizer's) a prompt may use now: what prompt builders clip long parts to. */
  promptLimit(): number {
    return this.budget.countedLimit();
  }

  /**
   * Fits the request (`request.messages` is replaced in place by the pruned or compacted form) and
   * sends it with `send`. A provider's context-overflow error gets one compaction and one retry,
   * never a failover; a second overflow ends in ContextExhaustedError.
   */
  async fitAndSend<T>(request: FittedRequest, helpers: FitHelpers, send: (fitted: PreparedFit) => Promise<T>): Promise<T> {
    const fitted = await prepareFit(this.fitDeps(helpers), request);
    try {
      return await send(fitted);
    } catch (error) {
      if (!isContextOverflow(error) || request.purpose === 'compact') throw error;
      this.budget.learnOverflow(overflowModel(error, this.budget.model), (await fitted.settle()).counted, overflowFacts(error.message));
      const refitted = await prepareFit(this.fitDeps(helpers), request, { afterOverflow: true });
      try {
        return await send(refitted);
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

  /**
   * The request was answered by `model`. With the endpoint's own usage the count only calibrates:
   * for a prompt far within its budget the response goes on at once, even while the count is still
   * being made (the counting thread's first load); requests nearer the limit wait for it.
   * Returns the prompt's count when it was waited for, else 0.
   */
  async answered(fitted: PreparedFit, counting: Promise<FitOutcome>, model: string, usage: { promptTokens: number } | undefined): Promise<number> {
    this.budget.model = model;
    const calibrate = ({ counted }: { counted: number }) => {
      if (usage) this.budget.observeUsage(model, counted, usage.promptTokens);
    };
    if (usage && fitted.roomy) {
      this.budget.track(counting.then(calibrate));
      return 0;
    }
    const outcome = await counting;
    calibrate(outcome);
    return outcome.counted;
  }

  /**
   * The request failed: its context_cost is reported before the request's outcome, unless the count
   * is still being made for a roomy prompt (then the run's end waits for it).
   */
  async failed(fitted: PreparedFit, counting: Promise<FitOutcome>): Promise<void> {
    if (fitted.roomy) this.budget.track(counting);
    else await counting.catch(() => undefined);
  }

  /** Resolves once every prompt count still being made is done: the run's records are all in before its end. */
  settled(): Promise<void> {
    return this.budget.settled();
  }

  private fitDeps(helpers: FitHelpers) {
    return {
      ...helpers,
      budget: this.budget,
      record: (record: ContextCostRecord, stepId: string | undefined) => this.report(record, stepId),
    };
  }

  /** A step's request is a step audit; requests of the run as a whole (planner, aggregator) have no step to file it under. */
  private report(record: ContextCostRecord, stepId: string | undefined): void {
    if (stepId !== undefined) this.log.append(stepAuditEvent(stepId, { kind: 'context_cost', data: { ...record } }));
    else
      this.log.append({
        type: 'log',
        level: 'debug',
        message: `context_cost ${record.purpose}: ${record.tokensAfter} of ${record.budget} tokens`,
        data: { kind: 'context_cost', ...record },
      });
  }
}
