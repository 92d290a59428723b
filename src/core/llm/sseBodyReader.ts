import { createParser, type EventSourceMessage } from 'eventsource-parser';
import OpenAI from 'openai';

// Reads the raw body of a streamed chat completion in one pass: each network read is decoded once,
// split into SSE events once (eventsource-parser), and each event's JSON is parsed once and handed
// to `onChunk`. `data: [DONE]` is noticed in the same pass and ends the reading, like the `openai`
// SDK's own stream does. Liveness costs one timestamp per read: the caller's single timer
// compares it with the clock (docs/design.md, “LLM requests: retries and failover”: any bytes, keep-alive comments included, count
// as life). The body is the web stream of the SDK's raw response.
// Errors are thrown the way the SDK throws them, so sdkFailure.ts reads both alike:
//   an `error` event or a chunk with an `error` member -> OpenAI.APIError (no HTTP status);
//   an event whose data is not JSON -> SyntaxError.

export interface SseReadState {
  /** Date.now() of the last network read (or of the start). */
  lastRead: number;
  /** `data: [DONE]` arrived. */
  sawDone: boolean;
}

const STREAM = { stream: true } as const;
const DONE = '[DONE]';
/** How long the end of a response may lag behind its [DONE]. */
const DONE_GRACE_MS = 200;

/** What happens to each SSE event: [DONE] noted, errors thrown, chunks parsed once and handed on. */
function eventHandler(headers: Headers, state: SseReadState, onChunk: (chunk: unknown) => void): (message: EventSourceMessage) => void {
  return (message) => {
    if (state.sawDone) return;
    const data = message.data;
    if (data === DONE) {
      state.sawDone = true;
      return;
    }
    let chunk: unknown;
    try {
      chunk = JSON.parse(data);
    } catch {
      throw new SyntaxError('Error reading response: malformed server-sent event JSON.');
    }
    if (message.event === 'error') throw new OpenAI.APIError(undefined, errorPayload(chunk, true), undefined, headers);
    if (typeof chunk === 'object' && chunk !== null && (chunk as { error?: unknown }).error)
      throw new OpenAI.APIError(undefined, errorPayload(chunk, false), undefined, headers);
    onChunk(chunk);
  };
}

/**
 * Reads the web stream `body` to its end or to [DONE], feeding every parsed chunk to `onChunk`.
 * Rejects when reading fails (abort, reset) or the stream carries an error or bad JSON; the body
 * is then cancelled so the connection is let go.
 */
export async function readSseBody(body: ReadableStream<Uint8Array>, headers: Headers, state: SseReadState, onChunk: (chunk: unknown) => void): Promise<void> {
  const parser = createParser({ onEvent: eventHandler(headers, state, onChunk) });
  const decoder = new TextDecoder();
  const reader = body.getReader();
  let ended = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        ended = true;
        // A last event without its blank line still counts, as in the SDK's decoder.
        parser.feed(`${decoder.decode()}\n\n`);
        return;
      }
      state.lastRead = Date.now();
      parser.feed(decoder.decode(value, STREAM));
      if (state.sawDone) {
        ended = await drainAfterDone(reader);
        return;
      }
    }
  } finally {
    // Stopped early ([DONE], an error event, bad JSON, an abort): the rest is not wanted.
    if (!ended) reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}

/**
 * After [DONE] the rest of the body is read (and ignored) for a moment: the end of the response
 * usually follows at once, and a body read to its end leaves the connection open for the next
 * request, where a cancelled one closes it. True when the body ended in time.
 */
async function drainAfterDone(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(resolve, DONE_GRACE_MS, false)));
  const drain = (async () => {
    for (;;) if ((await reader.read()).done) return true;
  })();
  try {
    return await Promise.race([drain, late]);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

/** What the SDK puts in APIError.error for an error inside the stream. */
function errorPayload(chunk: unknown, namedEvent: boolean): object | undefined {
  const record = typeof chunk === 'object' && chunk !== null ? (chunk as { error?: unknown }) : undefined;
  if (namedEvent) return (record?.error ?? chunk) as object | undefined;
  return record?.error as object | undefined;
}
