import { countTextTokens } from '../context/tokenCounter';
import type { ChatResponse } from '../llm/llmTypes';
import { costOf, priceOf, type PricingTable } from './pricing';

// The usage recorded for one request (`llm_request.usage`, docs/design.md, “Usage and cost”): what the endpoint
// reported, or — when it reported nothing — our tokenizer's count of the prompt as sent and of the
// reply, marked `estimated`. The cost comes from cortex.llm.pricing for the model that answered.

export interface RecordedUsage {
  promptTokens: number;
  completionTokens: number;
  cachedPromptTokens?: number;
  estimated?: true;
  cost?: number;
}

/** Tokens of a reply: its text and every tool call's name and arguments. */
export function countReplyTokens(response: Pick<ChatResponse, 'content' | 'toolCalls'>): number {
  let tokens = countTextTokens(response.content);
  for (const call of response.toolCalls) tokens += countTextTokens(call.name) + countTextTokens(call.rawArguments);
  return tokens;
}

export function requestUsage(response: ChatResponse, countedPrompt: number, pricing: PricingTable): RecordedUsage {
  const usage: RecordedUsage = response.usage
    ? { ...response.usage }
    : { promptTokens: countedPrompt, completionTokens: countReplyTokens(response), estimated: true };
  const cost = costOf(usage, priceOf(pricing, response.usedModel));
  if (cost !== undefined) usage.cost = cost;
  return usage;
}
