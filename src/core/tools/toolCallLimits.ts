import { utf8Head } from './outputCap';

// max_tool_calls_per_turn (docs/design.md, “Limits”): a response with a flood of tool calls keeps only its first
// N calls, in order, and the assistant message replayed in history is trimmed to the same N so
// every replayed call has exactly one tool result.

const SAMPLE_SIZE = 10;
const SAMPLE_NAME_BYTES = 200;

export interface ToolCallLimitAudit {
  toolCallsTotal: number;
  toolCallsExecuted: number;
  toolCallsOmitted: number;
  /** The limit applied; null when disabled. */
  toolCallsLimit: number | null;
  /** Up to 10 omitted names, each cut at 200 UTF-8 bytes. */
  omittedNamesSample: string[];
}

/** Up to 10 names, each cut at 200 UTF-8 bytes (never mid-character). */
export function omittedNamesSample(names: string[]): string[] {
  return names.slice(0, SAMPLE_SIZE).map((name) => utf8Head(name, SAMPLE_NAME_BYTES));
}

/** Keeps the first `limit` calls (all when `limit` is null) and reports what was cut. */
export function limitToolCalls<T>(
  calls: T[],
  limit: number | null,
  nameOf: (call: T) => string = (call) => {
    const name = (call as { name?: unknown }).name;
    return typeof name === 'string' ? name : '';
  },
): { kept: T[]; omitted: T[]; audit: ToolCallLimitAudit } {
  const kept = limit === null ? [...calls] : calls.slice(0, Math.max(0, limit));
  const omitted = calls.slice(kept.length);
  return {
    kept,
    omitted,
    audit: {
      toolCallsTotal: calls.length,
      toolCallsExecuted: kept.length,
      toolCallsOmitted: omitted.length,
      toolCallsLimit: limit,
      omittedNamesSample: omittedNamesSample(omitted.map(nameOf)),
    },
  };
}

/** A copy of an assistant message with `tool_calls` trimmed to the first `limit` (unchanged when null). */
export function limitAssistantMessage<M extends { tool_calls?: unknown[] }>(message: M, limit: number | null): M {
  if (limit === null || !message.tool_calls || message.tool_calls.length <= limit) return message;
  return { ...message, tool_calls: message.tool_calls.slice(0, Math.max(0, limit)) };
}
