import type { AccumulatedToolCall, ChatResponse, ToolSpec } from '../llm/llmTypes';
import { parseTextToolCalls, type SchemaLookup } from '../llm/textToolCalls';

// When a model served without a tool-call parser writes its calls into the text
// (llm/textToolCalls.ts), this turns them into the calls of the turn, so they go through the
// same pipeline, policy, approvals and verifier as native ones, marked `source: "text"`.
// cortex.llm.textToolCalls: `auto` reads them only when the request offered tools, the response
// has no native call, was not cut off, and its text holds complete, well-formed blocks of one
// known format naming only offered tools; `on` also lets names that were not offered through (the
// name resolution then repairs or refuses them); `off` never reads them.

export type TextToolCallMode = 'auto' | 'on' | 'off';

export interface TextToolCallTurn {
  response: ChatResponse;
  /** What was read or why nothing was, for the step's audit; undefined when the text held no marker. */
  audit?: Record<string, unknown>;
}

export function readTextToolCalls(
  response: ChatResponse,
  options: { mode: TextToolCallMode; offered: readonly ToolSpec[]; schemaOf: SchemaLookup; batch: number },
): TextToolCallTurn {
  if (options.mode === 'off' || response.toolCalls.length > 0 || options.offered.length === 0 || response.content === '') return { response };
  const parsed = parseTextToolCalls(response.content, options.schemaOf);
  if (!parsed) return { response };
  if (!parsed.ok) return { response, audit: { format: parsed.format, read: false, why: parsed.problem } };
  // A response cut off at its length limit may have meant more calls, or other ones.
  if (response.finishReason === 'length')
    return { response, audit: { format: parsed.format, read: false, why: 'the response was cut off (finish_reason length)' } };
  const offered = new Set(options.offered.map((tool) => tool.function.name));
  const unknown = parsed.calls.filter((call) => !offered.has(call.name)).map((call) => call.name);
  if (options.mode === 'auto' && unknown.length > 0)
    return { response, audit: { format: parsed.format, read: false, why: `names tools that were not offered: ${[...new Set(unknown)].join(', ')}` } };
  const toolCalls = parsed.calls.map((call, index): AccumulatedToolCall => {
    const rawArguments = JSON.stringify(call.arguments);
    return {
      id: `call_text_${options.batch}_${index}`,
      providerId: false,
      index,
      name: call.name,
      rawArguments,
      decoded: { ok: true, value: call.arguments, doubleEncoded: false },
      arguments: call.arguments,
      isComplete: true,
      finishReason: response.finishReason,
      source: 'text',
    };
  });
  return {
    response: { ...response, content: parsed.text, toolCalls },
    audit: { format: parsed.format, read: true, calls: toolCalls.length },
  };
}
