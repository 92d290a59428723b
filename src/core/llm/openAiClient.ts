import OpenAI from 'openai';
import { silentLogger, type Logger } from '../ports';
import { classifyLlmFailure, type FailureDecision, type FailureFacts } from './failoverPolicy';
import type { LlmHints } from './llmHints';
import { LlmError, type ChatRequest, type ChatResponse, type LlmAttempt, type LlmClient, type LlmErrorKind } from './llmTypes';
import { describeSdkFailure } from './sdkFailure';
import { readSseBody, type SseReadState } from './sseBodyReader';
import { createToolCallAccumulator, DEFAULT_MAX_ARGUMENT_BYTES, type AccumulatorResult } from './toolCallAccumulator';

// The LlmClient for any OpenAI-compatible endpoint (OpenAI, Azure, DeepSeek, Qwen, Mistral, Gemini,
// Ollama, vLLM, LM Studio, LiteLLM...), through the `openai` SDK and its own transport (the
// platform's fetch, which honours the proxy settings Node or the editor give it). The SDK builds,
// authenticates and sends every request; a stream's raw body (`asResponse()`) is read here in one
// pass (sseBodyReader.ts: decoded, split and parsed once, [DONE] noticed on the way) into the pure
// accumulator, never through the SDK's stream decoding or its stream helper (which throws on
// index-less tool calls).
// The SDK's own retries are off: this client retries transient failures itself, fails over to
// cortex.llm.fallbackModels only before anything streamed, and records every attempt. Once a
// fallback answered, later requests start with it: a missing model costs one failed round trip per
// client (the agent builds one client per run), not one per request.

export interface OpenAiClientOptions {
  /** API root, e.g. http://127.0.0.1:11434/v1. Always used as given: OPENAI_BASE_URL never wins. */
  baseUrl: string;
  /** Missing or empty: a placeholder is sent (local endpoints need no key). */
  apiKey?: string;
  model: string;
  /** Tried in order when a request for the current model fails before anything streamed. */
  fallbackModels?: string[];
  /** Until the response headers (streams) or the whole body (non-streamed). */
  requestTimeoutMs: number;
  /** A stream that sends no bytes for this long is stopped (retryable 'timeout'). */
  streamIdleTimeoutMs: number;
  /** Retries of transient failures (429, 5xx, resets, broken streams, timeouts) per request; a 429 waits what the endpoint asks, up to MAX_RETRY_AFTER_MS. */
  maxRetries: number;
  temperature?: number | null;
  /** Sent with every request (cortex.llm.headers, resolved): they may hold secrets, so they are never logged. */
  headers?: Record<string, string>;
  /** Added to every request URL (cortex.llm.query, e.g. api-version). */
  query?: Record<string, string>;
  logger?: Logger;
  /** Default: the SDK's (the platform's fetch). */
  fetch?: typeof fetch;
  /** First backoff delay; doubles per retry, capped at 8 s. Default 250 ms. */
  retryBaseDelayMs?: number;
  /** Argument byte cap per tool call (larger calls are not executed: 'too_large'). Default 4 MiB. */
  maxArgumentBytes?: number;
  /** How error messages name remedies (key command or variable, settings or flags). Default: the editor's. */
  hints?: LlmHints;
  /** The forward proxy requests go through (from the environment), named in connection errors. */
  proxy?: string;
}

const MAX_BACKOFF_MS = 8_000;
/**
 * The longest wait an endpoint's Retry-After (or "try again in N s") is honoured for. An endpoint
 * asking for longer (an hourly or daily limit) is not waited on: the request fails at once and
 * says how long the endpoint asked for, instead of holding the run for minutes.
 */
export const MAX_RETRY_AFTER_MS = 60_000;

export function createOpenAiClient(options: OpenAiClientOptions): LlmClient {
  return new OpenAiClient(options);
}

type AttemptOutcome = { ok: true; result: AccumulatorResult } | { ok: false; facts: FailureFacts };

interface Sent {
  streamOptions: boolean;
  responseFormat: boolean;
}

class OpenAiClient implements LlmClient {
  private readonly sdk: OpenAI;
  private readonly logger: Logger;
  /** Learned per endpoint: once refused, not sent again by this client. */
  private streamOptionsRefused = false;
  private responseFormatRefused = false;
  /** Batch counter for callers that pass none (the executor passes its per-run counter). */
  private nextBatch = 0;
  /** Index of the first model worth asking: the fallback that answered after earlier ones failed over. */
  private firstModel = 0;

  constructor(private readonly options: OpenAiClientOptions) {
    this.logger = options.logger ?? silentLogger;
    const apiKey = options.apiKey?.trim() ? options.apiKey : 'not-needed';
    this.sdk = new OpenAI({
      apiKey,
      baseURL: options.baseUrl,
      organization: null,
      project: null,
      maxRetries: 0,
      // A backstop only: this client's own timers abort first.
      timeout: options.requestTimeoutMs + 5_000,
      ...(options.fetch ? { fetch: options.fetch } : {}),
      logLevel: 'off',
      ...(options.headers && Object.keys(options.headers).length > 0 ? { defaultHeaders: options.headers } : {}),
      ...(options.query && Object.keys(options.query).length > 0 ? { defaultQuery: options.query } : {}),
    });
  }

  async chat(request: ChatRequest): Promise<ChatResponse> {
    const models = [...new Set([this.options.model, ...(this.options.fallbackModels ?? [])])];
    const start = Math.min(this.firstModel, models.length - 1);
    const requestedModel = models[start];
    const attempts: LlmAttempt[] = [];
    const notes: string[] = [];
    const batch = request.batch ?? this.nextBatch++;
    const stream = request.stream ?? true;
    let retries = 0;

    for (let m = start; m < models.length; m++) {
      const model = models[m];
      for (;;) {
        if (request.signal?.aborted) throw new LlmError('cancelled', 'The LLM request was cancelled.', undefined, attempts);
        const sent: Sent = {
          streamOptions: stream && !this.streamOptionsRefused,
          responseFormat: request.jsonResponse === true && !this.responseFormatRefused,
        };
        const started = Date.now();
        this.logger.debug('llm request', { purpose: request.purpose, stepId: request.stepId, model, stream, retry: retries });
        const outcome = await this.attempt(request, model, stream, sent, batch);
        const durationMs = Date.now() - started;

        if (outcome.ok) {
          attempts.push(attempt(model, true, durationMs, retries));
          if (m > this.firstModel) this.firstModel = m;
          const result = outcome.result;
          for (const note of result.notes) {
            if (note.includes('double-encoded')) this.logger.info(note, { model });
            else this.logger.debug(note, { model });
          }
          return {
            content: result.content,
            toolCalls: result.toolCalls,
            droppedToolNames: result.droppedToolNames,
            finishReason: result.finishReason,
            requestedModel,
            usedModel: model,
            attempts,
            ...(result.usage ? { usage: result.usage } : {}),
            ...(result.reasoning !== undefined ? { reasoning: result.reasoning } : {}),
            notes: [...notes, ...result.notes],
          };
        }

        const d = classifyLlmFailure(outcome.facts, {
          baseUrl: this.options.baseUrl,
          model,
          sentStreamOptions: sent.streamOptions,
          sentResponseFormat: sent.responseFormat,
          requestTimeoutMs: this.options.requestTimeoutMs,
          streamIdleTimeoutMs: this.options.streamIdleTimeoutMs,
          hints: this.options.hints,
          proxy: this.options.proxy,
        });
        attempts.push(failedAttempt(attempt(model, false, durationMs, retries), d, outcome.facts.status));
        if (d.kind === 'cancelled') throw new LlmError('cancelled', d.message, undefined, attempts);

        if (d.drop === 'stream_options') {
          this.streamOptionsRefused = true;
          notes.push(`${d.message} Asked again without it.`);
          this.logger.info('endpoint refused stream_options; sending without it from now on', { model });
          continue;
        }
        if (d.drop === 'response_format') {
          this.responseFormatRefused = true;
          notes.push(`${d.message} Asked again without it.`);
          this.logger.info('endpoint refused response_format; sending without it from now on', { model });
          continue;
        }
        if (d.failover && m < models.length - 1) {
          // Said once per run by the caller (llmCall), from the attempts.
          this.logger.warn('llm failover', { from: model, to: models[m + 1], status: outcome.facts.status, error: d.message });
          // Requests that start from now on (a streamed plan's first steps start while the planner's
          // reply still streams) skip the model that failed: it is asked once per run.
          if (m + 1 > this.firstModel) this.firstModel = m + 1;
          break;
        }
        const tooLong = d.retryAfterMs !== undefined && d.retryAfterMs > MAX_RETRY_AFTER_MS;
        if (d.transient && !tooLong && retries < this.options.maxRetries) {
          retries++;
          const delay = this.backoff(retries, d);
          this.logger.warn('llm request failed; retrying', { model, retry: retries, of: this.options.maxRetries, delayMs: delay, error: d.message });
          request.onRetry?.({ kind: d.kind, delayMs: delay, retry: retries, of: this.options.maxRetries, model });
          await sleep(delay, request.signal);
          continue;
        }
        if (d.transient && tooLong && retries < this.options.maxRetries) {
          const asked = `${Math.ceil(d.retryAfterMs! / 1000)} s`;
          const message = `${d.message} It asks to wait ${asked}, longer than the ${MAX_RETRY_AFTER_MS / 1000} s Cortex waits before a retry; try again later.`;
          throw new LlmError(d.kind, message, outcome.facts.status, attempts);
        }
        throw new LlmError(d.kind, finalMessage(d, attempts, models.slice(start), retries), outcome.facts.status, attempts);
      }
    }
    // Unreachable: the last model either returns or throws.
    throw new LlmError('bad_response', 'No model was tried.', undefined, attempts);
  }

  /** One HTTP request and, for streams, the reading of its body. Never throws. */
  private async attempt(request: ChatRequest, model: string, stream: boolean, sent: Sent, batch: number): Promise<AttemptOutcome> {
    const controller = new AbortController();
    let abortCause: 'cancelled' | 'request_timeout' | 'idle_timeout' | undefined;
    const abort = (cause: NonNullable<typeof abortCause>): void => {
      if (abortCause) return;
      abortCause = cause;
      controller.abort();
    };
    const onCallerAbort = (): void => abort('cancelled');
    if (request.signal?.aborted) abort('cancelled');
    request.signal?.addEventListener('abort', onCallerAbort, { once: true });
    let timer: ReturnType<typeof setTimeout> | undefined = setTimeout(() => abort('request_timeout'), this.options.requestTimeoutMs);
    const accumulator = createToolCallAccumulator({ batch, maxArgumentBytes: this.options.maxArgumentBytes ?? DEFAULT_MAX_ARGUMENT_BYTES });
    const phase = (): 'request' | 'stream' => (accumulator.chunkCount > 0 ? 'stream' : 'request');
    const aborted = (): AttemptOutcome => ({ ok: false, facts: { cause: abortCause!, phase: phase(), message: abortCause! } });

    const headers: Record<string, string> = { 'x-cortex-purpose': request.purpose };
    if (request.stepId) headers['x-cortex-step'] = request.stepId;
    const body: Record<string, unknown> = { model, messages: request.messages };
    if (request.tools && request.tools.length > 0) body.tools = request.tools;
    const temperature = request.temperature ?? this.options.temperature;
    if (typeof temperature === 'number') body.temperature = temperature;
    if (sent.responseFormat) body.response_format = { type: 'json_object' };
    // The timeout backstop and maxRetries 0 are the client's own (set once in the constructor).
    const requestOptions = { signal: controller.signal, headers };

    try {
      if (!stream) {
        const completion = await this.sdk.chat.completions.create(
          { ...body, stream: false } as unknown as OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming,
          requestOptions,
        );
        if (abortCause) return aborted();
        if (!isCompletion(completion)) {
          return { ok: false, facts: { cause: 'malformed', phase: 'request', message: `expected a chat completion, got ${describeBody(completion)}` } };
        }
        accumulator.push(completion);
        return { ok: true, result: accumulator.finish() };
      }

      const streamBody = { ...body, stream: true, ...(sent.streamOptions ? { stream_options: { include_usage: true } } : {}) };
      // The raw response: the SDK has sent the request and thrown for an error status; its body
      // is read here, once.
      const response = await this.sdk.chat.completions
        .create(streamBody as unknown as OpenAI.Chat.Completions.ChatCompletionCreateParamsStreaming, requestOptions)
        .asResponse();
      if (abortCause) return aborted();
      clearTimeout(timer);
      const state: SseReadState = { lastRead: Date.now(), sawDone: false };
      // One timer per stream, re-armed only when it fires: the reads themselves only stamp the time.
      const idleMs = this.options.streamIdleTimeoutMs;
      const watchIdle = (): void => {
        const quiet = Date.now() - state.lastRead;
        if (quiet >= idleMs) abort('idle_timeout');
        else timer = setTimeout(watchIdle, idleMs - quiet);
      };
      timer = setTimeout(watchIdle, idleMs);
      request.onStreamStart?.();
      const onContent = request.onContentDelta;
      const push = onContent
        ? (chunk: unknown): void => {
            accumulator.push(chunk);
            const text = contentDeltaOf(chunk);
            if (text) onContent(text);
          }
        : (chunk: unknown): void => accumulator.push(chunk);
      if (response.body) await readSseBody(response.body, response.headers, state, push);
      if (abortCause) return aborted();
      const contentType = response.headers.get('content-type') ?? '';
      if (accumulator.chunkCount === 0 && !contentType.includes('text/event-stream')) {
        return {
          ok: false,
          facts: {
            cause: 'malformed',
            phase: 'request',
            message: `a streaming request was answered with '${contentType || 'no content type'}' instead of an event stream`,
          },
        };
      }
      if (!state.sawDone && accumulator.finishReason === null) {
        return {
          ok: false,
          facts: { cause: 'no_done', phase: phase(), message: `stream ended after ${accumulator.chunkCount} chunks without [DONE] or finish_reason` },
        };
      }
      return { ok: true, result: accumulator.finish() };
    } catch (error) {
      if (abortCause) return aborted();
      return { ok: false, facts: describeSdkFailure(error, phase()) };
    } finally {
      clearTimeout(timer);
      request.signal?.removeEventListener('abort', onCallerAbort);
    }
  }

  private backoff(retry: number, d: FailureDecision): number {
    if (d.retryAfterMs !== undefined) return d.retryAfterMs;
    const base = this.options.retryBaseDelayMs ?? 250;
    return Math.min(base * 2 ** (retry - 1), MAX_BACKOFF_MS);
  }
}

function isCompletion(value: unknown): boolean {
  return typeof value === 'object' && value !== null && Array.isArray((value as { choices?: unknown }).choices);
}

function describeBody(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);
  return value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value === 'object' ? 'an object without choices' : typeof value;
}

function attempt(model: string, ok: boolean, durationMs: number, retries: number): LlmAttempt {
  return retries > 0 ? { model, ok, durationMs, retry: retries } : { model, ok, durationMs };
}

/**
 * A failed attempt as recorded: its status, the message, and the error kind (so whoever reads the
 * trace or the events can tell a run-ending failure from one worth retrying).
 */
function failedAttempt(base: LlmAttempt, d: FailureDecision, status: number | undefined): LlmAttempt {
  const recorded: LlmAttempt & { errorKind: LlmErrorKind } = { ...base, ...(status !== undefined ? { status } : {}), error: d.message, errorKind: d.kind };
  return recorded;
}

function finalMessage(d: FailureDecision, attempts: LlmAttempt[], models: string[], retries: number): string {
  let message = d.message;
  if (d.failover && models.length > 1) message += ` Tried ${models.map((m) => `'${m}'`).join(', ')}.`;
  if (d.transient && retries > 0) message += ` Gave up after ${attempts.length} attempts.`;
  return message;
}

/** Waits `ms`, or less if the signal aborts (the caller then sees the abort). */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** The text content a streamed chunk adds (its first choice's `delta.content`), for `onContentDelta`. */
function contentDeltaOf(chunk: unknown): string | undefined {
  const choices = (chunk as { choices?: unknown } | null)?.choices;
  const delta = Array.isArray(choices) ? (choices[0] as { delta?: { content?: unknown } } | undefined)?.delta : undefined;
  return typeof delta?.content === 'string' ? delta.content : undefined;
}
