import type { FlatConfig } from '../config/configSchema';
import { formatCost } from './formatUsage';
import { priceOf } from './pricing';

// cortex.limits.maxRunTokens and cortex.limits.maxRunCost (docs/design.md, “Usage and cost”). Past a cap no new
// step starts, running steps stop after their current turn, nothing is replanned or summarised,
// and the run ends failed with reason `budget_exceeded`.

export const BUDGET_EXCEEDED = 'budget_exceeded';

export interface RunTotals {
  promptTokens: number;
  completionTokens: number;
  cost?: number;
}

export class RunCaps {
  constructor(private readonly config: Pick<FlatConfig, 'cortex.limits.maxRunTokens' | 'cortex.limits.maxRunCost'>) {}

  /** Why the run is past a cap, or undefined while it is within both. */
  exceeded(totals: RunTotals): string | undefined {
    const maxTokens = this.config['cortex.limits.maxRunTokens'];
    const used = totals.promptTokens + totals.completionTokens;
    if (maxTokens !== null && used >= maxTokens) {
      return `the run used ${used.toLocaleString('en-US')} tokens, reaching cortex.limits.maxRunTokens (${maxTokens.toLocaleString('en-US')})`;
    }
    const maxCost = this.config['cortex.limits.maxRunCost'];
    if (maxCost !== null && (totals.cost ?? 0) >= maxCost) {
      return `the run cost about ${formatCost(totals.cost ?? 0)}, reaching cortex.limits.maxRunCost (${formatCost(maxCost)})`;
    }
    return undefined;
  }

  /** A warning when the cost cap cannot see a model's spending because it has no price. */
  unpricedWarning(
    config: Pick<FlatConfig, 'cortex.limits.maxRunCost' | 'cortex.llm.pricing' | 'cortex.llm.model' | 'cortex.llm.fallbackModels'>,
  ): string | undefined {
    if (config['cortex.limits.maxRunCost'] === null) return undefined;
    const missing = [config['cortex.llm.model'], ...config['cortex.llm.fallbackModels']].filter((m) => !priceOf(config['cortex.llm.pricing'], m));
    if (missing.length === 0) return undefined;
    return `cortex.limits.maxRunCost is set, but cortex.llm.pricing has no price for ${missing.join(', ')}: requests to ${missing.length === 1 ? 'it' : 'them'} cost nothing as far as the cap can tell.`;
  }
}
