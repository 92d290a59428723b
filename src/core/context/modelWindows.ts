// Context windows of well-known models, used when cortex.context.windowTokens is not set. Matched
// on the model name without a provider prefix ("openai/gpt-4o" → "gpt-4o"), the longest known
// prefix first, so dated variants (gpt-4o-2024-08-06) and tags (qwen2.5:7b) match their family.
// Anything unknown gets DEFAULT_WINDOW_TOKENS; a provider's own overflow error teaches the real
// limit during a run (contextBudget.ts).

export const DEFAULT_WINDOW_TOKENS = 128_000;

const KNOWN_WINDOWS: ReadonlyArray<readonly [prefix: string, tokens: number]> = [
  ['gpt-4.1', 1_047_576],
  ['gpt-5', 400_000],
  ['gpt-4o', 128_000],
  ['gpt-4-turbo', 128_000],
  ['gpt-4-32k', 32_768],
  ['gpt-4', 8_192],
  ['gpt-3.5-turbo', 16_385],
  ['o1-mini', 128_000],
  ['o1', 200_000],
  ['o3', 200_000],
  ['o4-mini', 200_000],
  ['claude', 200_000],
  ['gemini-1.5', 1_000_000],
  ['gemini-2', 1_000_000],
  ['deepseek', 64_000],
  ['qwen2.5', 32_768],
  ['qwen3', 32_768],
  ['llama3.1', 128_000],
  ['llama-3.1', 128_000],
  ['llama3', 8_192],
  ['mistral-large', 128_000],
  ['mistral', 32_768],
];

/** Answers by model name: every request of a run asks for the same one or two. */
const windowsByName = new Map<string, number | undefined>();

/** The known window of `model`, or undefined. */
export function knownContextWindow(model: string): number | undefined {
  if (windowsByName.has(model)) return windowsByName.get(model);
  const name = model.trim().toLowerCase().replace(/^.*\//, '');
  let best: readonly [string, number] | undefined;
  for (const entry of KNOWN_WINDOWS) {
    if (name.startsWith(entry[0]) && (!best || entry[0].length > best[0].length)) best = entry;
  }
  if (windowsByName.size < 64) windowsByName.set(model, best?.[1]);
  return best?.[1];
}

export function defaultContextWindow(model: string): number {
  return knownContextWindow(model) ?? DEFAULT_WINDOW_TOKENS;
}
