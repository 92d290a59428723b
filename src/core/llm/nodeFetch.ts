import http from 'node:http';
import https from 'node:https';
import { pipeline, type Readable } from 'node:stream';
import { urlToHttpOptions } from 'node:url';
import zlib from 'node:zlib';
import { NodeResponse, ResponseHeaders } from './nodeResponse';

export { nodeBodyOf } from './nodeResponse';

// The `fetch` the openai SDK sends its requests with: node:http and node:https on their global
// agents (kept-alive connections, and the proxy settings Node takes from the environment, like any
// Node client), which costs far less per request and per network read than the built-in fetch
// when many steps stream at once. The SDK still builds, authenticates and checks every request.
// The response is a small Response of its own (nodeResponse.ts): its body can be read the web
// way (the SDK reads error bodies and non-streamed completions with text()), or once, by the
// stream reader, as the Node stream it is (nodeBodyOf), with nothing in between. Anything this
// does not handle (a Request object, a streamed request body, another scheme) goes to the
// built-in fetch.

const MAX_REDIRECTS = 20;

/**
 * The caller's own abort signal rides along in the SDK's `fetchOptions` under this key (the SDK
 * copies them into the request it hands to fetch): given to the SDK as `signal`, it would be
 * composed with the SDK's own on every request (AbortSignal.any, listeners) for nothing.
 */
const CALLER_SIGNAL = Symbol('cortex.callerSignal');

/** `fetchOptions` for a request that `signal` aborts. */
export function abortingWith(signal: AbortSignal): Record<string, never> {
  const options: Record<symbol, AbortSignal> = { [CALLER_SIGNAL]: signal };
  return options;
}

const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

export function createNodeFetch(fallback: typeof fetch = globalThis.fetch): typeof fetch {
  return (input, init) => {
    const url = typeof input === 'string' ? safeUrl(input) : input instanceof URL ? input : undefined;
    const body = init?.body;
    if (
      !url ||
      (url.protocol !== 'http:' && url.protocol !== 'https:') ||
      !(body === undefined || body === null || typeof body === 'string' || body instanceof Uint8Array)
    ) {
      return fallback(input, init);
    }
    return send(url, init ?? {}, 0);
  };
}

// A client sends every request to the same URL: it is parsed, and turned into node:http's request
// options, once (both cost ~0.1 ms a request with many steps in flight). The few URLs of a process
// are kept; the cache starts over if it ever holds many. A URL object the caller made is read anew
// each time (it could have been changed since).
const MAX_KNOWN_URLS = 32;
const knownUrls = new Map<string, URL | undefined>();
const requestTargets = new WeakMap<URL, Readonly<http.RequestOptions>>();

function safeUrl(text: string): URL | undefined {
  if (knownUrls.has(text)) return knownUrls.get(text);
  let url: URL | undefined;
  try {
    url = new URL(text);
    requestTargets.set(url, Object.freeze(urlToHttpOptions(url)));
  } catch {
    url = undefined;
  }
  if (knownUrls.size >= MAX_KNOWN_URLS) knownUrls.clear();
  knownUrls.set(text, url);
  return url;
}

/** What node:http needs to know of `url`: host, port, path, credentials. */
function requestTarget(url: URL): http.RequestOptions {
  return requestTargets.get(url) ?? urlToHttpOptions(url);
}

function send(url: URL, init: RequestInit, redirects: number): Promise<Response> {
  return new Promise<Response>((resolve, reject) => {
    const signals = [init.signal, (init as Record<PropertyKey, unknown>)[CALLER_SIGNAL] as AbortSignal | undefined].filter((s): s is AbortSignal => !!s);
    const aborted = signals.find((s) => s.aborted);
    if (aborted) {
      reject(abortError(aborted));
      return;
    }
    const method = (init.method ?? 'GET').toUpperCase();
    const headers = headerRecord(init.headers);
    // A text body is written as text: copying it into a Buffer first costs more than the write.
    const body = (init.body ?? undefined) as string | Uint8Array | undefined;
    if (body !== undefined) headers['content-length'] = String(typeof body === 'string' ? Buffer.byteLength(body) : body.length);
    const request = (url.protocol === 'https:' ? https : http).request({ ...requestTarget(url), method, headers });
    let response: http.IncomingMessage | undefined;
    const onAbort = (): void => {
      const error = abortError(signals.find((s) => s.aborted) ?? signals[0]);
      request.destroy(error);
      response?.destroy(error);
      reject(error);
    };
    for (const signal of signals) signal.addEventListener('abort', onAbort, { once: true });
    const done = (): void => {
      for (const signal of signals) signal.removeEventListener('abort', onAbort);
    };
    request.on('error', (error) => {
      done();
      // As the built-in fetch fails: a TypeError whose cause names the network error (ECONNREFUSED...).
      reject(new TypeError('fetch failed', { cause: error }));
    });
    request.on('response', (incoming) => {
      response = incoming;
      const location = incoming.headers.location;
      const status = incoming.statusCode ?? 0;
      if (location && [301, 302, 303, 307, 308].includes(status) && init.redirect !== 'manual') {
        incoming.resume();
        done();
        if (init.redirect === 'error' || redirects >= MAX_REDIRECTS) {
          reject(new TypeError('fetch failed', { cause: new Error(`redirect ${status} to ${location} not followed`) }));
          return;
        }
        // As fetch does: 303, and 301/302 of a POST, go on as a GET without a body.
        const asGet = status === 303 || ((status === 301 || status === 302) && method === 'POST');
        const next: RequestInit = asGet ? { ...init, method: 'GET', body: undefined } : init;
        send(new URL(location, url), next, redirects + 1).then(resolve, reject);
        return;
      }
      incoming.once('close', done);
      try {
        resolve(toResponse(incoming, method, url));
      } catch (error) {
        incoming.destroy();
        reject(new TypeError('fetch failed', { cause: error }));
      }
    });
    request.end(body);
  });
}

function toResponse(incoming: http.IncomingMessage, method: string, url: URL): Response {
  const headers = new ResponseHeaders(incoming.rawHeaders);
  const status = incoming.statusCode ?? 0;
  if (NULL_BODY_STATUSES.has(status) || method === 'HEAD') {
    incoming.resume();
    return new NodeResponse(status, incoming.statusMessage ?? '', headers, null, url.href) as unknown as Response;
  }
  return new NodeResponse(status, incoming.statusMessage ?? '', headers, decoded(incoming, headers.get('content-encoding')), url.href) as unknown as Response;
}

/** The body as fetch gives it: gzip, deflate and brotli undone (the headers stay as sent). */
function decoded(incoming: http.IncomingMessage, encoding: string | null): Readable {
  const coding = encoding?.trim().toLowerCase();
  const decoder =
    coding === 'gzip' || coding === 'x-gzip'
      ? zlib.createGunzip()
      : coding === 'deflate'
        ? zlib.createInflate()
        : coding === 'br'
          ? zlib.createBrotliDecompress()
          : undefined;
  if (!decoder) return incoming;
  // A transport error of the response reaches the reader as an error of the decoded stream.
  pipeline(incoming, decoder, () => undefined);
  return decoder;
}

function headerRecord(headers: RequestInit['headers']): Record<string, string> {
  const record: Record<string, string> = {};
  if (!headers) return record;
  const entries: Iterable<[string, string | undefined]> = headers instanceof Headers ? headers : Array.isArray(headers) ? headers : Object.entries(headers);
  for (const [name, value] of entries) {
    if (value === undefined) continue;
    const key = name.toLowerCase();
    record[key] = record[key] === undefined ? value : `${record[key]}, ${value}`;
  }
  return record;
}

function abortError(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error && reason.name === 'AbortError' ? reason : new DOMException('This operation was aborted', 'AbortError');
}
