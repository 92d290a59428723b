import http from 'node:http';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { countPromptTokens } from '../../src/core/context/tokenCounter';
import { PromptCache, renderPrompt } from './promptCache';

// A scripted OpenAI-compatible endpoint on 127.0.0.1 for tests. It speaks real HTTP and SSE so the
// real `openai` SDK talks to it, and it refuses what a real endpoint refuses (unanswered tool calls,
// orphan tool messages, bad tool schemas) so the agent's protocol bugs fail tests instead of
// passing silently.

export interface ScriptedRequest {
  /** 0-based order of arrival. */
  index: number;
  method: string;
  path: string;
  /** The query parameters of the request URL (api-version and the like). */
  query: Record<string, string>;
  /** Lower-cased header names. */
  headers: Record<string, string>;
  /** Parsed JSON body of POST /v1/chat/completions (undefined for GET or unparseable bodies). */
  body: any;
  /** Header x-cortex-purpose. */
  purpose?: string;
  /** Header x-cortex-step. */
  stepId?: string;
  stream: boolean;
  /** The prompt's size by Cortex's tokenizer, when the server has `maxPromptTokens` or `promptCache`. */
  promptTokens?: number;
  /** With `promptCache`: the prompt tokens reported as served from the cache. */
  cachedTokens?: number;
  /** With `promptCache`: the share of the prompt (0…1) that repeats the start of an earlier request's. */
  sharedShare?: number;
}

export type ToolCallSpec = { id?: string; name: string; arguments: string | Record<string, unknown> };

export interface MessageReply {
  kind: 'message';
  content?: string;
  /** Reasoning text, streamed before the content (or put in the message) under `reasoningField`. */
  reasoning?: string;
  /** Where providers put it: DeepSeek, Qwen and xAI `reasoning_content`; OpenRouter, vLLM and Ollama `reasoning`. Default `reasoning_content`. */
  reasoningField?: 'reasoning_content' | 'reasoning';
  toolCalls?: ToolCallSpec[];
  finishReason?: string;
  usage?: { prompt_tokens: number; completion_tokens: number };
  model?: string;
  /** Size of streamed content and argument fragments (default 7). */
  fragmentSize?: number;
  /** Wait before the response starts. */
  delayMs?: number;
  /** Wait between streamed chunks. */
  chunkDelayMs?: number;
  /** Told right after each streamed chunk was written (benchmarks time what the client received against it). */
  onChunkWritten?: (chunk: Record<string, unknown>) => void;
}
export interface ChunksReply {
  kind: 'chunks';
  chunks: Array<Record<string, unknown> | string>;
  /** Send the final `data: [DONE]` (default true). */
  done?: boolean;
  delayMs?: number;
  chunkDelayMs?: number;
}
export interface ErrorReply {
  kind: 'error';
  status: number;
  message: string;
  type?: string;
  code?: string;
  param?: string;
  /** Extra response headers, e.g. `retry-after-ms` or `x-should-retry`. */
  headers?: Record<string, string>;
  delayMs?: number;
}
export interface ResetReply {
  kind: 'reset';
  afterChunks?: Array<Record<string, unknown>>;
  delayMs?: number;
}
export interface HangReply {
  kind: 'hang';
  afterChunks?: Array<Record<string, unknown>>;
  delayMs?: number;
}
/** Any status, headers and body, verbatim (for malformed-response tests). */
export interface RawReply {
  kind: 'raw';
  status?: number;
  headers?: Record<string, string>;
  body: string;
  delayMs?: number;
}

export type Reply = MessageReply | ChunksReply | ErrorReply | ResetReply | HangReply | RawReply;
export type Handler = (request: ScriptedRequest) => Reply | Promise<Reply>;

export interface ScriptedServerOptions {
  /** If set, requests without `Authorization: Bearer <apiKey>` get 401 like OpenAI. */
  apiKey?: string;
  /** If set, other model names get 404 model_not_found; also what GET /v1/models lists. */
  models?: string[];
  /** If true, a request with response_format gets 400 "response_format is not supported". */
  rejectResponseFormat?: boolean;
  /** If true, any request with tools gets 400 "tools is not supported by this model". */
  rejectTools?: boolean;
  /** If true, a request with an image part gets OpenAI's 400 for a model that takes no images. */
  rejectImages?: boolean;
  /**
   * The model's context window for prompts: a request whose messages and tools count more tokens
   * (by Cortex's own tokenizer) gets OpenAI's 400 `context_length_exceeded`; answered requests
   * report that count as `usage.prompt_tokens` unless the reply sets its own usage.
   */
  maxPromptTokens?: number;
  /** Serve HTTPS with this certificate (PEM) instead of HTTP: an endpoint behind a private certificate authority. */
  tls?: { key: string; cert: string };
  /**
   * Play a provider's prompt cache (promptCache.ts): each answered chat request's prompt is
   * compared with the earlier ones, and the tokens of its longest shared start are reported as
   * cached, in the usage shape of OpenAI (`prompt_tokens_details.cached_tokens`), DeepSeek
   * (`prompt_cache_hit_tokens`) or Anthropic's models behind a gateway (`cache_read_input_tokens`).
   * `usage.prompt_tokens` is then the prompt's count by Cortex's tokenizer.
   */
  promptCache?: 'openai' | 'deepseek' | 'anthropic-gateway';
}

export type RefusalReason = 'protocol' | 'auth' | 'model' | 'unsupported' | 'not_found' | 'context';
export interface Refusal {
  request: ScriptedRequest;
  status: number;
  message: string;
  reason: RefusalReason;
}

export interface ScriptedServer {
  /** "http://127.0.0.1:<port>/v1" */
  baseUrl: string;
  /** Every request received, including refused ones, in arrival order. */
  requests: ScriptedRequest[];
  /** Protocol violations the server refused with 400 (bad messages, tools, body). */
  rejections: Refusal[];
  /** Every request answered without calling the handler: rejections plus 401, model 404, configured refusals, unknown paths. */
  refusals: Refusal[];
  setHandler(handler: Handler): void;
  /** Chat-completion requests only (what the handler saw or would have seen). */
  chatRequests(): ScriptedRequest[];
  /** Throws listing every protocol violation, for an end-of-test check. */
  assertNoRejections(): void;
  /**
   * Closes all sockets, including hanging ones. Rejects, failing the test, if a handler threw (a
   * failed assertion inside a handler) or the server itself failed while answering.
   */
  close(): Promise<void>;
}

const VALID_ROLES = new Set(['system', 'user', 'assistant', 'tool', 'developer']);
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const ORPHAN_TOOL_MESSAGE = "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.";
const DEFAULT_MODELS = ['scripted-model'];

/** An OpenAI-shaped 400 found by validation. */
interface Violation {
  message: string;
  param: string | null;
  code: string | null;
}

export async function startScriptedServer(handler?: Handler, options: ScriptedServerOptions = {}): Promise<ScriptedServer> {
  let current: Handler | undefined = handler;
  const requests: ScriptedRequest[] = [];
  const rejections: Refusal[] = [];
  const refusals: Refusal[] = [];
  const sockets = new Set<Socket>();
  /** Handler throws and internal errors: answered with a 500, reported again by close(). */
  const failures: string[] = [];
  let closing = false;
  const promptCache = new PromptCache();

  const onRequest = (req: http.IncomingMessage, res: http.ServerResponse) => {
    void serve(req, res).catch((err: unknown) => {
      // A bug in the server itself: make it visible and never leave the client waiting.
      console.error('[scriptedServer] internal error:', err);
      failures.push(`internal error: ${errorText(err)}`);
      if (!res.headersSent && !res.destroyed)
        sendJson(res, 500, errorBody(`scripted server internal error: ${errorText(err)}`, 'server_error'), { 'x-should-retry': 'false' });
      else res.destroy();
    });
  };
  const server = options.tls
    ? https.createServer({ noDelay: true, keepAlive: true, key: options.tls.key, cert: options.tls.cert }, onRequest)
    : http.createServer({ noDelay: true, keepAlive: true }, onRequest);
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  async function serve(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const headers: Record<string, string> = {};
    for (const [key, value] of Object.entries(req.headers)) {
      if (value !== undefined) headers[key.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
    }
    const path = (req.url ?? '/').split('?')[0];
    const query = Object.fromEntries(new URL(req.url ?? '/', 'http://127.0.0.1').searchParams);
    const request: ScriptedRequest = {
      index: requests.length,
      method: req.method ?? 'GET',
      path,
      query,
      headers,
      body: undefined,
      purpose: headers['x-cortex-purpose'],
      stepId: headers['x-cortex-step'],
      stream: false,
    };
    requests.push(request);
    const raw = await readBody(req);

    const refuse = (status: number, reason: RefusalReason, body: ReturnType<typeof errorBody>): void => {
      const entry: Refusal = { request, status, message: body.error.message, reason };
      refusals.push(entry);
      if (reason === 'protocol') rejections.push(entry);
      sendJson(res, status, body);
    };

    const authError = checkAuth(headers['authorization'], options.apiKey);
    if (authError) return refuse(401, 'auth', errorBody(authError.message, 'invalid_request_error', null, authError.code));

    if (req.method === 'GET' && path === '/v1/models') {
      const now = Math.floor(Date.now() / 1000);
      sendJson(res, 200, {
        object: 'list',
        data: (options.models ?? DEFAULT_MODELS).map((id) => ({ id, object: 'model', created: now, owned_by: 'scripted' })),
      });
      return;
    }
    if (req.method !== 'POST' || path !== '/v1/chat/completions') {
      return refuse(404, 'not_found', errorBody(`Unknown request URL: ${req.method} ${path}.`, 'invalid_request_error', null, 'unknown_url'));
    }

    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch {
      return refuse(
        400,
        'protocol',
        errorBody(
          `We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly.)`,
          'invalid_request_error',
        ),
      );
    }
    request.body = body;
    request.stream = isObject(body) && body.stream === true;

    const violation = validateChatBody(body);
    if (violation) return refuse(400, 'protocol', errorBody(violation.message, 'invalid_request_error', violation.param, violation.code));
    const chat = body as Record<string, any>;

    if (options.models && !options.models.includes(chat.model)) {
      return refuse(
        404,
        'model',
        errorBody(`The model \`${chat.model}\` does not exist or you do not have access to it.`, 'invalid_request_error', null, 'model_not_found'),
      );
    }
    if (options.rejectResponseFormat && chat.response_format !== undefined) {
      return refuse(400, 'unsupported', errorBody('response_format is not supported', 'invalid_request_error', 'response_format', 'unsupported_parameter'));
    }
    if (options.rejectImages && JSON.stringify(chat.messages).includes('"type":"image_url"')) {
      return refuse(
        400,
        'unsupported',
        errorBody('Invalid content type. image_url is only supported by certain models.', 'invalid_request_error', 'messages', null),
      );
    }
    if (options.rejectTools && chat.tools !== undefined) {
      return refuse(400, 'unsupported', errorBody('tools is not supported by this model', 'invalid_request_error', 'tools', 'unsupported_parameter'));
    }
    if (options.maxPromptTokens !== undefined) {
      request.promptTokens = countPromptTokens(chat.messages, chat.tools);
      if (request.promptTokens > options.maxPromptTokens) {
        const text = `This model's maximum context length is ${options.maxPromptTokens} tokens. However, your messages resulted in ${request.promptTokens} tokens. Please reduce the length of the messages.`;
        return refuse(400, 'context', errorBody(text, 'invalid_request_error', 'messages', 'context_length_exceeded'));
      }
    }

    if (options.promptCache) {
      request.promptTokens ??= countPromptTokens(chat.messages, chat.tools);
      const { tokens, sharedTokens } = promptCache.take(renderPrompt(chat));
      request.sharedShare = tokens === 0 ? 0 : sharedTokens / tokens;
      request.cachedTokens = Math.floor(request.promptTokens * request.sharedShare);
    }

    if (!current) {
      console.error(`[scriptedServer] request #${request.index} (${request.purpose ?? 'no purpose'}) arrived but no handler is set`);
      failures.push(`request #${request.index} arrived but no handler is set`);
      sendJson(res, 500, errorBody('scripted server has no handler set', 'server_error'), { 'x-should-retry': 'false' });
      return;
    }
    let reply: Reply;
    try {
      reply = await current(request);
    } catch (err) {
      // A test script mistake: show why in the test output, and tell the SDK not to retry it.
      console.error(
        `[scriptedServer] handler threw for request #${request.index} (purpose=${request.purpose ?? '-'}, step=${request.stepId ?? '-'}): ${errorText(err)}`,
      );
      failures.push(`handler threw for request #${request.index} (purpose=${request.purpose ?? '-'}, step=${request.stepId ?? '-'}): ${errorText(err)}`);
      sendJson(res, 500, errorBody(`scripted handler threw: ${errorText(err)}`, 'server_error'), { 'x-should-retry': 'false' });
      return;
    }
    await sendReply(req, res, request, reply);
  }

  async function sendReply(req: http.IncomingMessage, res: http.ServerResponse, request: ScriptedRequest, reply: Reply): Promise<void> {
    if (!reply || typeof reply !== 'object' || typeof (reply as { kind?: unknown }).kind !== 'string') {
      throw new Error(`handler returned something that is not a Reply: ${safeJson(reply)}`);
    }
    const alive = (): boolean => !closing && !res.destroyed && !req.socket.destroyed;
    if (reply.delayMs) await sleep(reply.delayMs);
    if (!alive()) return;

    switch (reply.kind) {
      case 'error':
        sendJson(
          res,
          reply.status,
          errorBody(reply.message, reply.type ?? defaultErrorType(reply.status), reply.param ?? null, reply.code ?? null),
          reply.headers,
        );
        return;
      case 'raw':
        res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers });
        res.end(reply.body);
        return;
      case 'message': {
        const model = reply.model ?? request.body.model;
        if (!request.stream) {
          sendJson(res, 200, completionJson(request, reply, model, options.promptCache));
          return;
        }
        startSse(res);
        for (const chunk of streamChunks(request, reply, model, options.promptCache)) {
          if (!alive()) return;
          res.write(sseData(chunk));
          reply.onChunkWritten?.(chunk);
          if (reply.chunkDelayMs) await sleep(reply.chunkDelayMs);
        }
        if (alive()) res.end('data: [DONE]\n\n');
        return;
      }
      case 'chunks':
        startSse(res);
        for (const chunk of reply.chunks) {
          if (!alive()) return;
          res.write(sseData(chunk));
          if (reply.chunkDelayMs) await sleep(reply.chunkDelayMs);
        }
        if (alive()) res.end(reply.done === false ? '' : 'data: [DONE]\n\n');
        return;
      case 'reset':
        if (request.stream || reply.afterChunks?.length) {
          startSse(res);
          for (const chunk of reply.afterChunks ?? []) res.write(sseData(chunk));
          // Let the chunks reach the client before the connection dies mid-body.
          await new Promise<void>((resolve) => res.write('', () => resolve()));
        }
        req.socket.destroy();
        return;
      case 'hang':
        if (request.stream || reply.afterChunks?.length) {
          startSse(res);
          for (const chunk of reply.afterChunks ?? []) res.write(sseData(chunk));
        }
        // Never answer: the socket stays open until the client aborts or close() destroys it.
        return;
      default:
        throw new Error(`unknown reply kind: ${safeJson(reply)}`);
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}/v1`,
    requests,
    rejections,
    refusals,
    setHandler(next: Handler) {
      current = next;
    },
    chatRequests() {
      return requests.filter((r) => r.method === 'POST' && r.path === '/v1/chat/completions');
    },
    assertNoRejections() {
      if (rejections.length === 0) return;
      const lines = rejections.map((r) => `  #${r.request.index} (purpose=${r.request.purpose ?? '-'}, step=${r.request.stepId ?? '-'}): ${r.message}`);
      throw new Error(`scripted server refused ${rejections.length} request(s) as protocol violations:\n${lines.join('\n')}`);
    },
    async close() {
      closing = true;
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
        sockets.clear();
      });
      // Reported once: a second close() (an afterEach after the test's own) resolves.
      const reported = failures.splice(0);
      if (reported.length > 0) throw new Error(`the scripted server failed ${reported.length} time(s) while answering:\n  ${reported.join('\n  ')}`);
    },
  };
}

// ---- validation -------------------------------------------------------------------------------

/** The first reason a real OpenAI endpoint would refuse this chat body, or undefined. */
export function validateChatBody(body: unknown): Violation | undefined {
  if (!isObject(body)) return bad('The request body must be a JSON object.', null);
  if (typeof body.model !== 'string' || body.model.length === 0) return bad('you must provide a model parameter', 'model', null);
  if (!Array.isArray(body.messages)) return bad("Missing required parameter: 'messages'.", 'messages', 'missing_required_parameter');
  if (body.messages.length === 0)
    return bad("Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.", 'messages', 'empty_array');
  const messages = body.messages as unknown[];

  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    if (!isObject(m)) return bad(`Invalid type for 'messages[${i}]': expected an object, but got ${typeName(m)} instead.`, `messages[${i}]`, 'invalid_type');
    if (typeof m.role !== 'string' || !VALID_ROLES.has(m.role)) {
      return bad(
        `Invalid value: '${String(m.role)}'. Supported values are: 'system', 'assistant', 'user', 'tool', and 'developer'.`,
        `messages[${i}].role`,
        'invalid_value',
      );
    }
    const contentProblem = checkContent(m, i);
    if (contentProblem) return contentProblem;
    if (m.role === 'assistant' && m.tool_calls !== undefined) {
      const problem = checkAssistantToolCalls(m.tool_calls, i);
      if (problem) return problem;
    }
  }

  // Tool messages must directly answer the nearest preceding assistant tool_calls, each id once.
  let open: { index: number; ids: string[]; answered: Set<string> } | undefined;
  const unanswered = (): Violation | undefined => {
    if (!open) return undefined;
    const missing = open.ids.filter((id) => !open!.answered.has(id));
    if (missing.length === 0) return undefined;
    return bad(
      `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${missing.join(', ')}`,
      'messages',
      null,
    );
  };
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i] as Record<string, any>;
    if (m.role === 'tool') {
      if (!open) return bad(ORPHAN_TOOL_MESSAGE, `messages.[${i}].role`, null);
      if (typeof m.tool_call_id !== 'string' || m.tool_call_id.length === 0) {
        return bad(`${ORPHAN_TOOL_MESSAGE} Missing required parameter: 'messages[${i}].tool_call_id'.`, `messages[${i}].tool_call_id`, null);
      }
      if (!open.ids.includes(m.tool_call_id)) {
        return bad(
          `${ORPHAN_TOOL_MESSAGE} 'tool_call_id' of '${m.tool_call_id}' not found in 'tool_calls' of previous message.`,
          `messages.[${i}].tool_call_id`,
          null,
        );
      }
      if (open.answered.has(m.tool_call_id)) {
        return bad(
          `Invalid parameter: 'tool_call_id' of '${m.tool_call_id}' was answered more than once (messages[${i}]).`,
          `messages.[${i}].tool_call_id`,
          null,
        );
      }
      open.answered.add(m.tool_call_id);
      continue;
    }
    const problem = unanswered();
    if (problem) return problem;
    open = m.role === 'assistant' && Array.isArray(m.tool_calls) ? { index: i, ids: m.tool_calls.map((c: any) => c.id), answered: new Set() } : undefined;
  }
  const trailing = unanswered();
  if (trailing) return trailing;

  if (body.tools !== undefined) {
    const problem = checkTools(body.tools);
    if (problem) return problem;
  }
  return undefined;
}

function checkContent(m: Record<string, any>, i: number): Violation | undefined {
  const c = m.content;
  const okContent = typeof c === 'string' || Array.isArray(c);
  if (m.role === 'assistant') {
    if (c === undefined || c === null) {
      // Only a tool-calling assistant message may omit its text.
      if (m.tool_calls === undefined) return bad("Invalid value for 'content': expected a string, got null.", `messages.[${i}].content`, null);
      return undefined;
    }
    if (!okContent)
      return bad(
        `Invalid type for 'messages[${i}].content': expected one of a string or array of objects, but got ${typeName(c)} instead.`,
        `messages[${i}].content`,
        'invalid_type',
      );
    return undefined;
  }
  if (c === undefined) return bad(`Missing required parameter: 'messages[${i}].content'.`, `messages[${i}].content`, 'missing_required_parameter');
  if (!okContent)
    return bad(
      `Invalid type for 'messages[${i}].content': expected one of a string or array of objects, but got ${typeName(c)} instead.`,
      `messages[${i}].content`,
      'invalid_type',
    );
  return Array.isArray(c) ? checkContentParts(m.role, c, i) : undefined;
}

/** Data URLs of the image types OpenAI takes. */
const IMAGE_DATA_URL = /^data:image\/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/]+={0,2}$/;

/**
 * Content parts as OpenAI checks them: every part an object with a known type; image parts only
 * in user messages (a tool message may carry text only), each a URL or a base64 data URL of an
 * image type it takes.
 */
function checkContentParts(role: string, parts: unknown[], i: number): Violation | undefined {
  for (let j = 0; j < parts.length; j++) {
    const part = parts[j];
    const at = `messages[${i}].content[${j}]`;
    if (!isObject(part)) return bad(`Invalid type for '${at}': expected an object, but got ${typeName(part)} instead.`, at, 'invalid_type');
    if (part.type === 'text') {
      if (typeof part.text !== 'string') return bad(`Missing required parameter: '${at}.text'.`, `${at}.text`, 'missing_required_parameter');
      continue;
    }
    if (part.type === 'image_url') {
      if (role !== 'user')
        return bad(
          `Invalid 'messages[${i}]'. Image URLs are only allowed for messages with role 'user', but this message with role '${role}' contains an image URL.`,
          `messages[${i}]`,
          'invalid_value',
        );
      const url = isObject(part.image_url) ? part.image_url.url : undefined;
      if (typeof url !== 'string') return bad(`Missing required parameter: '${at}.image_url.url'.`, `${at}.image_url.url`, 'missing_required_parameter');
      if (!/^https?:\/\//.test(url) && !IMAGE_DATA_URL.test(url))
        return bad(
          `Invalid image URL: '${at}.image_url.url'. Expected a base64-encoded data URL with an image MIME type (e.g. 'data:image/png;base64,...').`,
          `${at}.image_url.url`,
          'invalid_value',
        );
      continue;
    }
    if (role === 'user' && (part.type === 'input_audio' || part.type === 'file')) continue;
    if (role === 'assistant' && part.type === 'refusal') continue;
    return bad(
      `Invalid value: '${String(part.type)}'. Supported values are: 'text'${role === 'user' ? ", 'image_url', 'input_audio', and 'file'" : ''}.`,
      `${at}.type`,
      'invalid_value',
    );
  }
  return undefined;
}

function checkAssistantToolCalls(calls: unknown, i: number): Violation | undefined {
  if (!Array.isArray(calls))
    return bad(
      `Invalid type for 'messages[${i}].tool_calls': expected an array, but got ${typeName(calls)} instead.`,
      `messages[${i}].tool_calls`,
      'invalid_type',
    );
  if (calls.length === 0)
    return bad(
      `Invalid 'messages[${i}].tool_calls': empty array. Expected an array with minimum length 1, but got an empty array instead.`,
      `messages[${i}].tool_calls`,
      'empty_array',
    );
  const seen = new Set<string>();
  for (let j = 0; j < calls.length; j++) {
    const call = calls[j];
    const at = `messages[${i}].tool_calls[${j}]`;
    if (!isObject(call)) return bad(`Invalid type for '${at}': expected an object, but got ${typeName(call)} instead.`, at, 'invalid_type');
    if (typeof call.id !== 'string' || call.id.length === 0) return bad(`Missing required parameter: '${at}.id'.`, `${at}.id`, 'missing_required_parameter');
    if (seen.has(call.id)) return bad(`Invalid parameter: duplicate tool_call id '${call.id}' in '${`messages[${i}].tool_calls`}'.`, `${at}.id`, null);
    seen.add(call.id);
    if (call.type !== 'function') return bad(`Invalid value: '${String(call.type)}'. Supported values are: 'function'.`, `${at}.type`, 'invalid_value');
    if (!isObject(call.function)) return bad(`Missing required parameter: '${at}.function'.`, `${at}.function`, 'missing_required_parameter');
    if (typeof call.function.name !== 'string' || call.function.name.length === 0)
      return bad(`Missing required parameter: '${at}.function.name'.`, `${at}.function.name`, 'missing_required_parameter');
    // A replayed call must name a function the way a tool definition would (OpenAI refuses others).
    if (!TOOL_NAME.test(call.function.name)) {
      return bad(
        `Invalid '${at}.function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]{1,64}$'.`,
        `${at}.function.name`,
        'invalid_value',
      );
    }
    if (typeof call.function.arguments !== 'string') {
      return bad(
        `Invalid type for '${at}.function.arguments': expected a string, but got ${typeName(call.function.arguments)} instead.`,
        `${at}.function.arguments`,
        'invalid_type',
      );
    }
  }
  return undefined;
}

function checkTools(tools: unknown): Violation | undefined {
  if (!Array.isArray(tools)) return bad(`Invalid type for 'tools': expected an array, but got ${typeName(tools)} instead.`, 'tools', 'invalid_type');
  if (tools.length === 0)
    return bad("Invalid 'tools': empty array. Expected an array with minimum length 1, but got an empty array instead.", 'tools', 'empty_array');
  for (let k = 0; k < tools.length; k++) {
    const tool = tools[k];
    const at = `tools[${k}]`;
    if (!isObject(tool)) return bad(`Invalid type for '${at}': expected an object, but got ${typeName(tool)} instead.`, at, 'invalid_type');
    if (tool.type !== 'function') return bad(`Invalid value: '${String(tool.type)}'. Supported values are: 'function'.`, `${at}.type`, 'invalid_value');
    if (!isObject(tool.function)) return bad(`Missing required parameter: '${at}.function'.`, `${at}.function`, 'missing_required_parameter');
    const name = tool.function.name;
    if (typeof name !== 'string' || !TOOL_NAME.test(name)) {
      return bad(
        `Invalid '${at}.function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`,
        `${at}.function.name`,
        'invalid_value',
      );
    }
    const params = tool.function.parameters;
    if (!isObject(params))
      return bad(
        `Invalid schema for function '${name}': parameters must be a JSON Schema object, got ${typeName(params)}.`,
        `${at}.function.parameters`,
        'invalid_function_parameters',
      );
    if (params.type !== 'object') {
      return bad(
        `Invalid schema for function '${name}': schema must be a JSON Schema of 'type: "object"', got 'type: "${String(params.type)}"'.`,
        `${at}.function.parameters`,
        'invalid_function_parameters',
      );
    }
  }
  return undefined;
}

function bad(message: string, param: string | null, code: string | null = null): Violation {
  return { message, param, code };
}

// ---- response shapes --------------------------------------------------------------------------

function toolCallId(request: ScriptedRequest, spec: ToolCallSpec, i: number): string {
  return spec.id ?? `call_${request.index}_${i}`;
}
function argumentText(spec: ToolCallSpec): string {
  return typeof spec.arguments === 'string' ? spec.arguments : JSON.stringify(spec.arguments);
}
function finishReasonOf(reply: MessageReply): string {
  return reply.finishReason ?? (reply.toolCalls?.length ? 'tool_calls' : 'stop');
}
function usageOf(request: ScriptedRequest, reply: MessageReply, cacheShape: ScriptedServerOptions['promptCache']) {
  const u = reply.usage ?? { prompt_tokens: request.promptTokens ?? 10, completion_tokens: 5 };
  const usage = { prompt_tokens: u.prompt_tokens, completion_tokens: u.completion_tokens, total_tokens: u.prompt_tokens + u.completion_tokens };
  const cached = reply.usage ? undefined : request.cachedTokens;
  if (cached === undefined || !cacheShape) return usage;
  if (cacheShape === 'openai') return { ...usage, prompt_tokens_details: { cached_tokens: cached, audio_tokens: 0 } };
  if (cacheShape === 'deepseek') return { ...usage, prompt_cache_hit_tokens: cached, prompt_cache_miss_tokens: u.prompt_tokens - cached };
  return { ...usage, cache_read_input_tokens: cached, cache_creation_input_tokens: u.prompt_tokens - cached };
}

function completionJson(request: ScriptedRequest, reply: MessageReply, model: string, cacheShape?: ScriptedServerOptions['promptCache']) {
  const calls = reply.toolCalls ?? [];
  return {
    id: `chatcmpl-scripted-${request.index}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: reply.content ?? null,
          refusal: null,
          ...(reply.reasoning !== undefined ? { [reply.reasoningField ?? 'reasoning_content']: reply.reasoning } : {}),
          ...(calls.length
            ? {
                tool_calls: calls.map((spec, i) => ({
                  id: toolCallId(request, spec, i),
                  type: 'function',
                  function: { name: spec.name, arguments: argumentText(spec) },
                })),
              }
            : {}),
        },
        logprobs: null,
        finish_reason: finishReasonOf(reply),
      },
    ],
    usage: usageOf(request, reply, cacheShape),
  };
}

/** The chunk sequence a real endpoint streams for this message (without the final [DONE]). */
export function streamChunks(
  request: ScriptedRequest,
  reply: MessageReply,
  model: string,
  cacheShape?: ScriptedServerOptions['promptCache'],
): Array<Record<string, unknown>> {
  const size = Math.max(1, reply.fragmentSize ?? 7);
  const includeUsage = isObject(request.body?.stream_options) && request.body.stream_options.include_usage === true;
  const base = {
    id: `chatcmpl-scripted-${request.index}`,
    object: 'chat.completion.chunk',
    created: Math.floor(Date.now() / 1000),
    model,
    system_fingerprint: 'fp_scripted',
  };
  const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) => ({
    ...base,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    ...(includeUsage ? { usage: null } : {}),
  });

  const out: Array<Record<string, unknown>> = [
    chunk({ role: 'assistant', content: reply.toolCalls?.length && reply.content === undefined ? null : '', refusal: null }),
  ];
  for (const piece of fragments(reply.reasoning ?? '', size)) out.push(chunk({ [reply.reasoningField ?? 'reasoning_content']: piece }));
  for (const piece of fragments(reply.content ?? '', size)) out.push(chunk({ content: piece }));
  (reply.toolCalls ?? []).forEach((spec, i) => {
    out.push(chunk({ tool_calls: [{ index: i, id: toolCallId(request, spec, i), type: 'function', function: { name: spec.name, arguments: '' } }] }));
    for (const piece of fragments(argumentText(spec), size)) out.push(chunk({ tool_calls: [{ index: i, function: { arguments: piece } }] }));
  });
  out.push(chunk({}, finishReasonOf(reply)));
  if (includeUsage) out.push({ ...base, choices: [], usage: usageOf(request, reply, cacheShape) });
  return out;
}

function fragments(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

function errorBody(message: string, type: string, param: string | null = null, code: string | null = null) {
  return { error: { message, type, param, code } };
}

function defaultErrorType(status: number): string {
  if (status === 401) return 'invalid_request_error';
  if (status === 429) return 'requests';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}

function checkAuth(authorization: string | undefined, apiKey: string | undefined): { message: string; code: string | null } | undefined {
  if (apiKey === undefined) return undefined;
  const match = /^Bearer\s+(.+)$/i.exec(authorization ?? '');
  if (!match) {
    return {
      message:
        "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
      code: null,
    };
  }
  if (match[1] !== apiKey) {
    const shown = match[1].length > 4 ? `${match[1].slice(0, 2)}****${match[1].slice(-2)}` : '****';
    return {
      message: `Incorrect API key provided: ${shown}. You can find your API key at https://platform.openai.com/account/api-keys.`,
      code: 'invalid_api_key',
    };
  }
  return undefined;
}

function startSse(res: http.ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive' });
  res.flushHeaders();
}

function sseData(chunk: Record<string, unknown> | string): string {
  return `data: ${typeof chunk === 'string' ? chunk : JSON.stringify(chunk)}\n\n`;
}

function sendJson(res: http.ServerResponse, status: number, body: unknown, headers?: Record<string, string>): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    req.on('error', reject);
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function isObject(value: unknown): value is Record<string, any> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  return `a ${typeof value}`;
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
