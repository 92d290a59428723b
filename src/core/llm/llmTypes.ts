import type OpenAI from 'openai';
import type { Purpose } from './purpose';

// The contract between the agent and any LLM client. The real client (openAiClient.ts) speaks
// to an OpenAI-compatible endpoint through the `openai` SDK; tests use the same client against
// the scripted server on 127.0.0.1.

export type { Purpose };
export type ChatMessage = OpenAI.Chat.Completions.ChatCompletionMessageParam;

/** A function tool as sent to the model (JSON Schema derived from the tool's zod schema). */
export interface ToolSpec {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown>; strict?: boolean };
}

export type ArgumentParseError = 'invalid_json' | 'too_large' | 'truncated';

/** A call's arguments, decoded once (llm/argumentDecoding.ts): a JSON value, or why there is none. */
export type ArgumentValue = { ok: true; value: unknown; doubleEncoded: boolean } | { ok: false; error: ArgumentParseError; message: string };

/** One tool call as assembled from a streamed (or non-streamed) response. */
export interface AccumulatedToolCall {
  /** Provider id, or `call_{batch}_{index}` when the provider gave none. */
  id: string;
  providerId: boolean;
  index: number;
  name: string;
  /** Concatenated argument text exactly as received (objects are JSON-stringified). */
  rawArguments: string;
  /** The decoded arguments, what the tool pipeline reads (docs/design.md, “Preflight validation and the invalid result”). */
  decoded: ArgumentValue;
  /** The arguments when `isComplete`. */
  arguments?: unknown;
  /** True when the arguments decoded to a JSON object (docs/design.md, “Streamed tool-call accumulation”). */
  isComplete: boolean;
  /** Why not complete: `truncated` only when the response was cut off, else `invalid_json` or `too_large`. */
  parseError?: ArgumentParseError;
  doubleEncoded?: boolean;
  finishReason: string | null;
  /** `text`: read from the model's text (agent/textToolCallTurn.ts), not sent as a native tool call. */
  source?: 'text';
}

export interface ChatRequest {
  purpose: Purpose;
  stepId?: string;
  messages: ChatMessage[];
  tools?: readonly ToolSpec[];
  /** Streamed by default for executor turns; repairs and planners use false. */
  stream?: boolean;
  temperature?: number;
  /** Ask for `response_format: json_object` (dropped automatically if the endpoint refuses it). */
  jsonResponse?: boolean;
  signal?: AbortSignal;
  /** Per-run batch counter for fallback tool-call ids `call_{batch}_{index}` (docs/design.md, “Streamed tool-call accumulation”). */
  batch?: number;
  /**
   * A streamed request's reply text as it arrives (the streamed planner reads its plan from it).
   * `onStreamStart` is told before each attempt's stream: after a retry or a failover the text
   * starts again from the beginning.
   */
  onContentDelta?: (text: string) => void;
  onStreamStart?: () => void;
  /** Told before each wait for a retry, so a long wait (a rate limit) can be shown while it lasts. */
  onRetry?: (wait: RetryWait) => void;
}

/** A retry about to happen: why, after how long, and which of how many. */
export interface RetryWait {
  kind: LlmErrorKind;
  delayMs: number;
  retry: number;
  of: number;
  model: string;
}

export interface LlmAttempt {
  model: string;
  ok: boolean;
  status?: number;
  error?: string;
  durationMs: number;
  retry?: number;
}

export interface ChatResponse {
  content: string;
  toolCalls: AccumulatedToolCall[];
  /** Names dropped at ingestion because they were empty or only symbols (docs/design.md, “Streamed tool-call accumulation”). */
  droppedToolNames: string[];
  finishReason: string | null;
  requestedModel: string;
  usedModel: string;
  attempts: LlmAttempt[];
  /** As the endpoint reported it; `cachedPromptTokens` from `prompt_tokens_details.cached_tokens`. */
  usage?: { promptTokens: number; completionTokens: number; cachedPromptTokens?: number };
  /** The model's reasoning (`reasoning_content` / `reasoning`), capped: recorded in the trace, never sent back to an endpoint. */
  reasoning?: string;
  /** Ingestion notes for the trace (double-encoded args, unparseable calls...). */
  notes: string[];
}

export type LlmErrorKind =
  | 'unreachable'
  | 'auth'
  | 'bad_request'
  | 'not_found'
  | 'rate_limit'
  /** The account is out of quota or credit: no retry helps. */
  | 'quota'
  | 'server'
  | 'stream_broken'
  | 'timeout'
  | 'cancelled'
  | 'bad_response'
  | 'context_overflow';

/** A failed LLM request, with a message meant for a person (no stack traces). */
export class LlmError extends Error {
  constructor(
    readonly kind: LlmErrorKind,
    message: string,
    readonly status?: number,
    readonly attempts: LlmAttempt[] = [],
  ) {
    super(message);
    this.name = 'LlmError';
  }
}

export interface LlmClient {
  chat(request: ChatRequest): Promise<ChatResponse>;
}
