import { countTextTokens } from '../../src/core/context/tokenCounter';

// A provider's prompt cache, as the scripted server plays it: a prompt is rendered as the provider
// reads it (the tool definitions first, then the messages in order), and the part of it that repeats
// the start of an earlier prompt is "cached". Real providers cache in blocks (OpenAI: 128 tokens,
// from 1,024 on); here every shared token counts, so the figure is the upper bound a layout allows.

/** What a chat request's prompt looks like to a provider's cache: tools, then each message. */
export function renderPrompt(body: { tools?: unknown; messages?: unknown }): string {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  return [JSON.stringify(body.tools ?? []), ...messages.map((message) => JSON.stringify(message))].join('\n');
}

/** Remembers the prompts it has seen and says how much of a new one repeats the start of one of them. */
export class PromptCache {
  private readonly seen: string[] = [];

  /** Tokens of `prompt`, and of its longest start shared with an earlier prompt; then remembers it. */
  take(prompt: string): { tokens: number; sharedTokens: number } {
    let shared = 0;
    for (const earlier of this.seen) shared = Math.max(shared, sharedStart(prompt, earlier));
    this.seen.push(prompt);
    return { tokens: countTextTokens(prompt), sharedTokens: shared === 0 ? 0 : countTextTokens(prompt.slice(0, shared)) };
  }
}

function sharedStart(a: string, b: string): number {
  const end = Math.min(a.length, b.length);
  let i = 0;
  while (i < end && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}
