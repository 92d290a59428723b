// How token counts and costs are written for people, shared by the CLI's summary line and the
// panel. Pure (no Node, no DOM), so the webview can import it.

export interface UsageTotals {
  promptTokens: number;
  completionTokens: number;
  cachedPromptTokens?: number;
  cost?: number;
  /** Some of the numbers were counted by the tokenizer because the endpoint reported none. */
  estimated?: boolean;
}

/** $0.0012, $0.123, $12.35. */
export function formatCost(cost: number): string {
  if (cost === 0) return '$0';
  if (cost < 0.01) return `$${cost.toPrecision(2)}`;
  return `$${cost.toFixed(cost < 10 ? 3 : 2)}`;
}

/** 950, 12.3k, 1.25M. */
export function formatTokenCount(tokens: number): string {
  if (tokens < 1000) return String(tokens);
  if (tokens < 1_000_000) return `${(tokens / 1000).toFixed(tokens < 10_000 ? 1 : 0)}k`;
  return `${(tokens / 1_000_000).toFixed(2)}M`;
}

/** "12.3k tokens (11.0k in, 1.3k out), $0.012" with "~" and "estimated" when counted by the tokenizer. */
export function usageText(usage: UsageTotals): string {
  const approx = usage.estimated ? '~' : '';
  const total = usage.promptTokens + usage.completionTokens;
  let text = `${approx}${formatTokenCount(total)} tokens (${formatTokenCount(usage.promptTokens)} in, ${formatTokenCount(usage.completionTokens)} out)`;
  if (usage.cost !== undefined) text += `, ${approx}${formatCost(usage.cost)}`;
  if (usage.estimated) text += ' (estimated)';
  return text;
}
