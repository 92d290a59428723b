import { defaultContextWindow } from './modelWindows';
import { TokenCalibration } from './tokenCalibration';

// How many prompt tokens one request may use (docs/design.md, “Context budget and memory”): the model's context window
// minus the tokens reserved for the reply. Counts come from our tokenizer and are scaled by the
// model's calibration; a provider's overflow error lowers the window for the rest of the run.

export interface ContextBudgetSettings {
  /** cortex.context.windowTokens; null = the known window of the model, else 128,000. */
  windowTokens: number | null;
  /** cortex.context.reserveOutputTokens. */
  reserveOutputTokens: number;
}

/** What an endpoint's context-overflow error said, when it gave numbers. */
export interface OverflowFacts {
  /** "maximum context length is N tokens". */
  limit?: number;
  /** "your messages resulted in N tokens". */
  actual?: number;
}

/** Never plan with less room than this, whatever the settings say (a prompt needs its system text). */
const MIN_PROMPT_BUDGET = 256;

export class ContextBudget {
  readonly calibration = new TokenCalibration();
  private readonly learnedWindows = new Map<string, number>();
  /** The model requests go to now (the client keeps using a fallback once it answered). */
  model: string;

  constructor(
    private readonly settings: ContextBudgetSettings,
    model: string,
  ) {
    this.model = model;
  }

  /** The context window of `model`: the setting or the known table, lowered by what an overflow taught. */
  window(model = this.model): number {
    const configured = this.settings.windowTokens ?? defaultContextWindow(model);
    return Math.min(configured, this.learnedWindows.get(model) ?? Infinity);
  }

  /** Prompt tokens a request may use, in the endpoint's tokens. */
  limit(model = this.model): number {
    return Math.max(MIN_PROMPT_BUDGET, this.window(model) - this.settings.reserveOutputTokens);
  }

  /** The same limit in our tokenizer's tokens (what the degradation stages compare counts with). */
  countedLimit(model = this.model): number {
    return Math.floor(this.limit(model) / this.calibration.ratio(model));
  }

  /** What the endpoint will count for a prompt our tokenizer counted as `counted`. */
  estimate(counted: number, model = this.model): number {
    return this.calibration.estimate(model, counted);
  }

  /** Counts still on their way (their context_cost record and calibration come with them). */
  private readonly pending = new Set<Promise<unknown>>();

  /** Keeps `work` (a count made while its request travels) until it is done; see `settled`. */
  track(work: Promise<unknown>): void {
    const done = work.catch(() => undefined).finally(() => this.pending.delete(done));
    this.pending.add(done);
  }

  /** Resolves once every tracked count is done: the run's records are all in before its end. */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }

  /** One request's `usage.prompt_tokens` next to our count of the same prompt. */
  observeUsage(model: string, counted: number, reportedPromptTokens: number): void {
    this.calibration.observe(model, counted, reportedPromptTokens);
  }

  /**
   * The endpoint refused a prompt we counted as `counted` for being too long. Its own numbers are
   * used when it gave them; otherwise the window becomes the size of the refused prompt (it was
   * too long, so the real room is smaller).
   */
  learnOverflow(model: string, counted: number, facts: OverflowFacts): void {
    if (facts.actual !== undefined) this.calibration.observe(model, counted, facts.actual);
    const refused = facts.actual ?? this.estimate(counted, model);
    const window = facts.limit !== undefined && facts.limit < refused ? facts.limit : refused;
    this.learnedWindows.set(model, Math.min(this.learnedWindows.get(model) ?? Infinity, window));
  }
}
