import { EDITOR_LLM_HINTS, type LlmHints } from './llmHints';
import type { LlmErrorKind } from './llmTypes';
import { oneLine } from '../text/clip';
import { retryAfterFromText } from './retryAfterText';

// What to do when one attempt of an LLM request fails:
// - fail over to the next of cortex.llm.fallbackModels only before any token streamed, and only on
//   a 404 about the model or a 400/422 about tools, functions or schema;
// - never fail over on 401/403 or on other 400s;
// - retry the same model, within the retry budget, on transient failures: 429, 5xx, connection
//   resets, a stream that broke off, timeouts; a 429 waits as long as the endpoint asks (its
//   Retry-After header, else its own words, "try again in 20s");
// - never retry an account out of quota (429/402 `insufficient_quota`): waiting does not refill it;
// - an endpoint that refuses `stream_options` or `response_format` is asked again without it.
// Pure: the client turns SDK errors into FailureFacts and acts on the decision.

export type FailureCause =
  /** The endpoint answered with an HTTP error (or an error event inside the stream). */
  | 'http'
  /** The connection failed (refused, DNS, reset...). */
  | 'network'
  | 'request_timeout'
  | 'idle_timeout'
  | 'cancelled'
  /** The stream ended without [DONE] and without a finish_reason. */
  | 'no_done'
  /** The body was not an OpenAI chat completion (bad JSON, bad SSE). */
  | 'malformed';

export interface FailureFacts {
  cause: FailureCause;
  /** 'request' until the first chunk arrived, then 'stream'. */
  phase: 'request' | 'stream';
  status?: number;
  /** The endpoint's or the transport's own words. */
  message: string;
  /** OpenAI error `code`, `type` and `param`, e.g. 'model_not_found', 'insufficient_quota', 'tools'. */
  code?: string;
  type?: string;
  param?: string;
  /** Network error code from the cause chain: ECONNREFUSED, ENOTFOUND, ECONNRESET, UND_ERR_SOCKET... */
  networkCode?: string;
  /** The `x-should-retry` response header, when present. */
  shouldRetry?: boolean;
  /** From `retry-after-ms` / `retry-after`. */
  retryAfterMs?: number;
}

export interface FailureContext {
  baseUrl: string;
  model: string;
  /** Whether this attempt sent stream_options / response_format (only those can be dropped). */
  sentStreamOptions: boolean;
  sentResponseFormat: boolean;
  requestTimeoutMs: number;
  streamIdleTimeoutMs: number;
  /** How messages name remedies; the editor's wording when absent. */
  hints?: LlmHints;
  /** The forward proxy the request went through, if any. */
  proxy?: string;
}

export interface FailureDecision {
  kind: LlmErrorKind;
  /** Worth retrying the same model (counts against cortex.llm.maxRetries). */
  transient: boolean;
  /** Worth trying the next fallback model. */
  failover: boolean;
  /** Ask again at once without this parameter (does not count as a retry). */
  drop?: 'stream_options' | 'response_format';
  retryAfterMs?: number;
  /** For a person: what happened and what to check. */
  message: string;
}

const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ERR_INVALID_URL']);
const ABOUT_TOOLS = /\b(tools?|tool_choice|tool[ _-]?calls?|tool[ _-]?calling|tool[ _-]?use|functions?|function[ _-]?call(s|ing)?|schema)\b/i;
const ABOUT_MODEL = /\bmodels?\b/i;
const ABOUT_STREAM_OPTIONS = /stream_options|include_usage/i;
const ABOUT_RESPONSE_FORMAT = /response_format|json_object|json[ _]mode/i;
/** A prompt longer than the model's window; OpenAI's words mention "functions", so this is checked before tools. */
const CONTEXT_OVERFLOW =
  /context_length_exceeded|maximum context length|context (?:window|length) (?:exceeded|is exceeded)|exceeds? the (?:model's )?(?:context|maximum context)|prompt is too long/i;

export function classifyLlmFailure(facts: FailureFacts, ctx: FailureContext): FailureDecision {
  const d = classify(facts, ctx);
  // Once the stream started, the model is not switched and parameters are not dropped.
  return facts.phase === 'stream' && (d.failover || d.drop)
    ? { kind: d.kind, transient: d.transient, failover: false, message: d.message, ...(d.retryAfterMs !== undefined ? { retryAfterMs: d.retryAfterMs } : {}) }
    : d;
}

function classify(facts: FailureFacts, ctx: FailureContext): FailureDecision {
  const said = quoteEndpoint(facts.message);
  const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;
  const setting = (ctx.hints ?? EDITOR_LLM_HINTS).setting;
  switch (facts.cause) {
    case 'cancelled':
      return decision('cancelled', false, 'The LLM request was cancelled.');
    case 'request_timeout':
      return decision(
        'timeout',
        true,
        `The LLM endpoint ${ctx.baseUrl} did not answer within ${seconds(ctx.requestTimeoutMs)} (${setting('cortex.llm.requestTimeoutSeconds')}).`,
      );
    case 'idle_timeout':
      return decision(
        'timeout',
        true,
        `The response stream from ${ctx.baseUrl} sent nothing for ${seconds(ctx.streamIdleTimeoutMs)} and was stopped (${setting('cortex.llm.streamIdleTimeoutSeconds')}).`,
      );
    case 'no_done':
      return decision('stream_broken', true, `The response stream from ${ctx.baseUrl} ended before the model finished (no [DONE], no finish_reason).`);
    case 'malformed':
      return decision(
        'bad_response',
        false,
        `The endpoint ${ctx.baseUrl} sent something that is not an OpenAI chat completion${said}. Check that ${setting('cortex.llm.baseUrl')} points at an OpenAI-compatible API (usually ending in /v1).`,
      );
    case 'network':
      return classifyNetwork(facts, ctx, said);
    case 'http':
      return classifyHttp(facts, ctx, said);
  }
}

/** A proxy URL without its credentials (user:password@ may be in it). */
function redactProxy(proxy: string): string {
  try {
    const url = new URL(proxy);
    if (url.username || url.password) {
      url.username = '';
      url.password = '';
    }
    return url.origin;
  } catch {
    return 'from the environment';
  }
}

/** What each certificate failure means, for the one line that names it. */
const CERTIFICATE_PROBLEMS: Record<string, string> = {
  CERT_HAS_EXPIRED: 'its certificate has expired',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'its certificate is self-signed',
  SELF_SIGNED_CERT_IN_CHAIN: 'its certificate comes from a certificate authority this machine does not trust',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'its certificate was issued by a certificate authority this machine does not know',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'its certificate was issued by a certificate authority this machine does not know',
  UNABLE_TO_GET_ISSUER_CERT: 'its certificate was issued by a certificate authority this machine does not know',
  CERT_UNTRUSTED: 'its certificate is not trusted',
  ERR_TLS_CERT_ALTNAME_INVALID: 'its certificate is for another host name',
};

/**
 * A TLS certificate the client would not trust: which problem, and what fixes it (a private
 * authority's certificate for Node, or the endpoint's owner for an expired or misnamed one).
 */
function certificateFailure(code: string, ctx: FailureContext): FailureDecision {
  const where = ctx.proxy ? `the LLM endpoint ${ctx.baseUrl} (through the proxy ${redactProxy(ctx.proxy)})` : `the LLM endpoint ${ctx.baseUrl}`;
  const fix =
    code === 'CERT_HAS_EXPIRED' || code === 'ERR_TLS_CERT_ALTNAME_INVALID'
      ? 'the endpoint (or the proxy in front of it) must present a valid certificate for this address'
      : `if your company uses its own certificate authority, give its certificate (PEM) with ${(ctx.hints ?? EDITOR_LLM_HINTS).extraCaCerts}`;
  return decision('unreachable', false, `Cortex does not trust ${where}: ${CERTIFICATE_PROBLEMS[code]} (${code}); ${fix}.`);
}

function classifyNetwork(facts: FailureFacts, ctx: FailureContext, said: string): FailureDecision {
  const code = facts.networkCode;
  const setting = (ctx.hints ?? EDITOR_LLM_HINTS).setting;
  if (facts.phase === 'request' && code && code in CERTIFICATE_PROBLEMS) return certificateFailure(code, ctx);
  if (facts.phase === 'request' && code && UNREACHABLE_CODES.has(code) && ctx.proxy) {
    return decision(
      'unreachable',
      false,
      `Cannot reach the LLM endpoint ${ctx.baseUrl} through the proxy ${redactProxy(ctx.proxy)} (${code}): check that the proxy is running, or the HTTPS_PROXY / HTTP_PROXY and NO_PROXY variables.`,
    );
  }
  if (facts.phase === 'request' && code && UNREACHABLE_CODES.has(code)) {
    return decision(
      'unreachable',
      false,
      `Cannot reach the LLM endpoint ${ctx.baseUrl} (${code}). Check ${setting('cortex.llm.baseUrl')} and that the server is running.`,
    );
  }
  if (facts.phase === 'stream') {
    return decision(
      'stream_broken',
      true,
      `The connection to ${ctx.baseUrl} broke off in the middle of the model's response (${code ?? oneLine(facts.message, 300)}).`,
    );
  }
  return decision('stream_broken', true, `The connection to ${ctx.baseUrl} failed (${code ?? 'no error code'})${said}.`);
}

function classifyHttp(facts: FailureFacts, ctx: FailureContext, said: string): FailureDecision {
  const status = facts.status;
  const text = `${facts.message} ${facts.code ?? ''} ${facts.param ?? ''}`;
  const override = (d: FailureDecision): FailureDecision => (facts.shouldRetry === undefined || d.kind === 'auth' ? d : { ...d, transient: facts.shouldRetry });
  const hints = ctx.hints ?? EDITOR_LLM_HINTS;
  const setting = hints.setting;

  if (status === 401) {
    return decision('auth', false, `The endpoint rejected the API key (401). ${hints.apiKey}`);
  }
  if (status === 403) {
    return decision('auth', false, `The endpoint refused access (403)${said}. Check that the API key may use model '${ctx.model}'.`);
  }
  if (status === 404) {
    if (facts.code === 'model_not_found' || ABOUT_MODEL.test(facts.message)) {
      return {
        ...decision(
          'not_found',
          false,
          `Model '${ctx.model}' is not available at ${ctx.baseUrl} (404)${said}. Check ${setting('cortex.llm.model')}, or list other models in ${setting('cortex.llm.fallbackModels')}.`,
        ),
        failover: true,
      };
    }
    return decision(
      'not_found',
      false,
      `${ctx.baseUrl}/chat/completions was not found (404)${said}. Check that ${setting('cortex.llm.baseUrl')} is the API root, usually ending in /v1.`,
    );
  }
  if (status === 400 || status === 422) {
    if (ctx.sentStreamOptions && ABOUT_STREAM_OPTIONS.test(text)) {
      return { ...decision('bad_request', false, `The endpoint refused stream_options (${status})${said}.`), drop: 'stream_options' };
    }
    if (ctx.sentResponseFormat && ABOUT_RESPONSE_FORMAT.test(text)) {
      return { ...decision('bad_request', false, `The endpoint refused response_format (${status})${said}.`), drop: 'response_format' };
    }
    if (facts.code === 'context_length_exceeded' || CONTEXT_OVERFLOW.test(text)) {
      // Never a failover: another model would not make the prompt shorter. The agent compacts and retries once.
      return decision('context_overflow', false, `The prompt is longer than model '${ctx.model}' accepts (${status})${said}.`);
    }
    const aboutHistory = (facts.param ?? '').startsWith('messages') || /messages\[\d+\]/.test(facts.message);
    if (!aboutHistory && ABOUT_TOOLS.test(text)) {
      return {
        ...decision(
          'bad_request',
          false,
          `Model '${ctx.model}' refused the request's tools (${status})${said}. Use a model that supports tool calling, or list one in ${setting('cortex.llm.fallbackModels')}.`,
        ),
        failover: true,
      };
    }
    return override(decision('bad_request', false, `The endpoint rejected the request (${status})${said}.`));
  }
  if (status === 408) return override(decision('timeout', true, `The endpoint timed out the request (408)${said}.`));
  if (status === 409) return override(decision('server', true, `The endpoint reported a conflict (409)${said}.`));
  if ((status === 429 || status === 402) && isQuotaExhausted(facts)) {
    return decision(
      'quota',
      false,
      `The account behind ${ctx.baseUrl} is out of quota (${status} ${facts.code ?? facts.type ?? 'insufficient_quota'})${said}. Retrying does not help: add credit or raise the limit with the provider, or use another key.`,
    );
  }
  if (status === 429) {
    const d = override(decision('rate_limit', true, `The endpoint is rate limiting requests (429)${said}.`));
    const wait = facts.retryAfterMs ?? retryAfterFromText(facts.message);
    return wait !== undefined ? { ...d, retryAfterMs: wait } : d;
  }
  if (status !== undefined && status >= 500) return override(decision('server', true, `The endpoint failed with ${status}${said}.`));
  if (status === undefined) {
    // An error event inside a 200 stream, without a status.
    return override(decision('server', true, `The endpoint reported an error in the middle of its response${said}.`));
  }
  return override(decision('bad_request', false, `The endpoint rejected the request (${status})${said}.`));
}

/** OpenAI's `insufficient_quota` (as code or type), or the words of providers that send no code. */
function isQuotaExhausted(facts: FailureFacts): boolean {
  if (facts.code === 'insufficient_quota' || facts.type === 'insufficient_quota') return true;
  return /\b(exceeded your current quota|insufficient (?:quota|credits?|balance))\b/i.test(facts.message);
}

function decision(kind: LlmErrorKind, transient: boolean, message: string): FailureDecision {
  return { kind, transient, failover: false, message };
}

/** The endpoint's own words after a colon, without its final period (the sentence adds one). */
function quoteEndpoint(message: string): string {
  const words = oneLine(message, 300).replace(/[\s.]+$/, '');
  return words ? `: ${words}` : '';
}

/**
 * Error kinds after which no further request of the run can succeed (the key, the endpoint or the
 * model is wrong, or the user cancelled): the run stops instead of replanning.
 */
export function endsTheRun(kind: string | undefined): boolean {
  return kind === 'auth' || kind === 'unreachable' || kind === 'not_found' || kind === 'quota' || kind === 'cancelled';
}

/**
 * The one line a run says when a request had to leave its model for a fallback. `where`: "at URL"
 * for the endpoint, "in VS Code" for its language models (whose failures carry their words, no status).
 */
export function failoverNotice(skipped: Array<{ model: string; status?: number; error?: string }>, usedModel: string, where: string): string {
  const why = skipped.map((s) => {
    if (s.status === 404) return `model ${s.model} not found`;
    if (s.status === undefined && s.error) return `model ${s.model} failed (${oneLine(s.error, 120)})`;
    return `model ${s.model} refused the request's tools${s.status ? ` (${s.status})` : ''}`;
  });
  return `${why.join(', ')} ${where} — using ${usedModel}`;
}
