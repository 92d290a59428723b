import OpenAI from 'openai';
import type { FailureFacts } from './failoverPolicy';

// Reads what the `openai` SDK (or the fetch under it) threw into plain FailureFacts, so the
// decision what to do (failoverPolicy.ts) never depends on SDK classes.

export function describeSdkFailure(error: unknown, phase: 'request' | 'stream'): FailureFacts {
  if (error instanceof OpenAI.APIUserAbortError) return { cause: 'cancelled', phase, message: error.message };
  if (error instanceof OpenAI.APIConnectionTimeoutError) return { cause: 'request_timeout', phase, message: error.message };
  if (error instanceof OpenAI.APIConnectionError) {
    return { cause: 'network', phase, message: causeMessage(error) ?? error.message, networkCode: networkCode(error) };
  }
  if (error instanceof OpenAI.APIError) {
    const body = (error.error ?? {}) as Record<string, unknown>;
    const providerMessage = typeof body.message === 'string' ? body.message : error.message;
    // An error event inside a 200 stream has no HTTP status; some providers put one in `code`.
    const codeStatus = typeof body.code === 'number' ? body.code : typeof body.code === 'string' && /^\d{3}$/.test(body.code) ? Number(body.code) : undefined;
    const facts: FailureFacts = { cause: 'http', phase, status: (error.status as number | undefined) ?? codeStatus, message: providerMessage };
    if (typeof error.code === 'string') facts.code = error.code;
    if (typeof error.type === 'string') facts.type = error.type;
    if (typeof error.param === 'string') facts.param = error.param;
    const headers = error.headers as Headers | undefined;
    const shouldRetry = headers?.get('x-should-retry');
    if (shouldRetry === 'true' || shouldRetry === 'false') facts.shouldRetry = shouldRetry === 'true';
    const retryAfter = retryAfterMs(headers);
    if (retryAfter !== undefined) facts.retryAfterMs = retryAfter;
    return facts;
  }
  if (error instanceof SyntaxError) return { cause: 'malformed', phase, message: error.message };
  if (error instanceof Error) {
    // A body that broke off mid-read: undici throws TypeError('terminated') with a socket cause.
    return { cause: 'network', phase, message: causeMessage(error) ?? error.message, networkCode: networkCode(error) };
  }
  return { cause: 'malformed', phase, message: String(error) };
}

/** The first `code` along the `cause` chain (ECONNREFUSED, ECONNRESET, UND_ERR_SOCKET...). */
function networkCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 6 && current && typeof current === 'object'; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && code !== '') return code;
    const errors = (current as { errors?: unknown }).errors;
    if (Array.isArray(errors) && errors.length > 0) {
      const inner = networkCode(errors[0]);
      if (inner) return inner;
    }
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function causeMessage(error: Error): string | undefined {
  const cause = (error as { cause?: unknown }).cause;
  if (cause instanceof Error) return causeMessage(cause) ?? cause.message;
  return undefined;
}

function retryAfterMs(headers: Headers | undefined): number | undefined {
  if (!headers) return undefined;
  const ms = Number(headers.get('retry-after-ms'));
  if (headers.get('retry-after-ms') !== null && Number.isFinite(ms) && ms >= 0) return ms;
  const after = headers.get('retry-after');
  if (after === null) return undefined;
  const seconds = Number(after);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(after);
  return Number.isFinite(date) ? Math.max(0, date - Date.now()) : undefined;
}
