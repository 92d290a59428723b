import { LlmError } from '../llm/llmTypes';
import type { OverflowFacts } from './contextBudget';

// A provider's "your prompt is too long" error (400 `context_length_exceeded`, "maximum context
// length is …"), already classified by the client (failoverPolicy.ts, kind `context_overflow`).
// It never fails over: another model would not make the prompt shorter. The numbers in it, when
// there are any, teach the budget the real limit.

export function isContextOverflow(error: unknown): error is LlmError {
  return error instanceof LlmError && error.kind === 'context_overflow';
}

/** The model that refused, from the error's attempts. */
export function overflowModel(error: LlmError, fallback: string): string {
  return error.attempts.at(-1)?.model ?? fallback;
}

/** Limits and sizes a provider put in its words (OpenAI, vLLM, llama.cpp, Anthropic-style). */
export function overflowFacts(message: string): OverflowFacts {
  const facts: OverflowFacts = {};
  const number = (pattern: RegExp): number | undefined => {
    const match = pattern.exec(message);
    return match ? Number(match[1].replace(/[,_]/g, '')) : undefined;
  };
  facts.limit =
    number(/maximum context length (?:is|of) ([\d,_]+)/i) ?? number(/context (?:window|length|size)(?: is| of)? ([\d,_]+)/i) ?? number(/> ?([\d,_]+) maximum/i);
  facts.actual =
    number(/([\d,_]+) (?:tokens )?in the messages/i) ??
    number(/resulted in ([\d,_]+) tokens/i) ??
    number(/too long: ([\d,_]+) tokens/i) ??
    number(/requested ([\d,_]+) tokens/i);
  if (facts.limit === undefined) delete facts.limit;
  if (facts.actual === undefined) delete facts.actual;
  return facts;
}
