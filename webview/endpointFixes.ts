// Which fixes the panel offers when a run ended on an error of the model endpoint. The run's error
// is the client's sentence (core/llm/failoverPolicy.ts): a rejected key names 401/403, an unreachable
// or wrong endpoint names its network code, 404 or a URL problem. Retry is offered for every one.

export type EndpointFix = 'setApiKey' | 'openSettings' | 'retry';

const AUTH = /\((401|403)\)|rejected the API key|refused access|no API key/i;
const ENDPOINT =
  /cannot reach|\(404\)|was not found|ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ECONNRESET|invalid url|bad url|not an openai chat completion|is not available at/i;
/** Anything else the endpoint said (rate limits, 5xx, timeouts): only Retry helps. */
const OTHER_ENDPOINT = /\bendpoint\b|\(429\)|\(5\d\d\)|timed out/i;

/** The buttons for a failed run's error, or [] when the error is not about the endpoint. */
export function endpointFixes(error: string | undefined): EndpointFix[] {
  if (!error) return [];
  if (AUTH.test(error)) return ['setApiKey', 'retry'];
  if (ENDPOINT.test(error)) return ['openSettings', 'retry'];
  if (OTHER_ENDPOINT.test(error)) return ['retry'];
  return [];
}
