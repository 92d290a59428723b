// cortex.llm.pricing turns token usage into money (docs/design.md, “Usage and cost”): prices per million
// tokens, per model name as the endpoint reports it. Cached prompt tokens cost
// `cachedInputPerMTok` (the input price when that is not set). A model without a price has no
// cost; the caps then cannot count it (the run says so once).

export interface ModelPrice {
  inputPerMTok: number;
  outputPerMTok: number;
  cachedInputPerMTok?: number;
}

export type PricingTable = Record<string, ModelPrice>;

export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
  /** Prompt tokens the endpoint served from its cache (part of promptTokens). */
  cachedPromptTokens?: number;
}

/** The price of `model`: an exact entry, else one that matches ignoring case. */
export function priceOf(pricing: PricingTable, model: string): ModelPrice | undefined {
  if (Object.hasOwn(pricing, model)) return pricing[model];
  const lower = model.toLowerCase();
  const key = Object.keys(pricing).find((k) => k.toLowerCase() === lower);
  return key === undefined ? undefined : pricing[key];
}

/** Cost in the pricing's currency, or undefined when the model has no price. */
export function costOf(usage: TokenUsage, price: ModelPrice | undefined): number | undefined {
  if (!price) return undefined;
  const cached = Math.min(usage.cachedPromptTokens ?? 0, usage.promptTokens);
  const cost =
    ((usage.promptTokens - cached) * price.inputPerMTok +
      cached * (price.cachedInputPerMTok ?? price.inputPerMTok) +
      usage.completionTokens * price.outputPerMTok) /
    1_000_000;
  // Sums of many tiny costs: keep 10 significant decimals, no binary noise in the trace.
  return Math.round(cost * 1e10) / 1e10;
}
