import type OpenAI from 'openai';

// What a streamed chat request is sent with, as the openai SDK builds it: the URL, the
// authentication, its platform and content headers. The SDK builds it once per client; every
// request then adds only its own headers and body. For a client with a fixed key these are the
// same on every request, and building them (URL parsing, Headers objects, key checks) was about a
// tenth of the run's own CPU per request in a wide plan.

export interface StreamRequestTemplate {
  url: string;
  /** Lower-case names; no content-length (the sender sets it for each body). */
  headers: Readonly<Record<string, string>>;
}

export async function buildStreamRequestTemplate(sdk: OpenAI, timeoutMs: number): Promise<StreamRequestTemplate> {
  const built = await sdk.buildRequest({ method: 'post', path: '/chat/completions', body: {}, stream: true, timeout: timeoutMs, maxRetries: 0 });
  const headers: Record<string, string> = {};
  // Once per client: a Headers object reads whichever form the SDK gave.
  for (const [name, value] of new Headers(built.req.headers)) {
    const key = name.toLowerCase();
    if (key !== 'content-length') headers[key] = value;
  }
  return { url: String(built.url), headers };
}

/** One request's init: the template's headers with the request's own on top (theirs win). */
export function streamRequestInit(template: StreamRequestTemplate, own: Record<string, string>, body: unknown, signal: AbortSignal): RequestInit {
  const headers: Record<string, string> = { ...template.headers };
  for (const name of Object.keys(own)) headers[name.toLowerCase()] = own[name];
  return { method: 'POST', headers, body: JSON.stringify(body), signal };
}
