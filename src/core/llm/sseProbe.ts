// The `openai` SDK ends a stream quietly when the connection closes without `data: [DONE]`, so a
// response cut short by a proxy looks finished. This fetch wrapper watches the raw SSE bytes of the
// requests that ask for it: it reports whether [DONE] arrived and every time bytes arrive (the idle
// timer counts keep-alive comments as life, not only parsed chunks).

const PROBE = Symbol('cortex.sseProbe');

export interface SseProbe {
  sawDone: boolean;
  bytes: number;
  /** Content type of the response, once it arrived. */
  contentType?: string;
  /** Called on every chunk of bytes received. */
  onActivity?: () => void;
}

export function newSseProbe(): SseProbe {
  return { sawDone: false, bytes: 0 };
}

/** Per-request `fetchOptions` that hand the probe to the wrapped fetch (the SDK passes them through). */
export function sseProbeFetchOptions(probe: SseProbe): Record<string, never> {
  // A symbol key: invisible to JSON and to other code, copied along by the SDK's object spreads.
  return { [PROBE]: probe } as unknown as Record<string, never>;
}

const DONE_LINE = /^data:[ \t]*\[DONE\][ \t]*\r?$/;

/** Wraps `inner` so event-stream responses of probed requests are watched on their way to the SDK. */
export function createProbingFetch(inner: typeof fetch): typeof fetch {
  return async (input, init) => {
    const probe = init ? ((init as Record<PropertyKey, unknown>)[PROBE] as SseProbe | undefined) : undefined;
    if (!probe || !init) return inner(input, init);
    const { [PROBE]: _unused, ...plain } = init as Record<PropertyKey, unknown>;
    const response = await inner(input, plain as RequestInit);
    const type = response.headers.get('content-type') ?? '';
    probe.contentType = type;
    if (!response.body || !type.includes('text/event-stream')) return response;

    const decoder = new TextDecoder();
    let tail = '';
    const look = (text: string, final: boolean): void => {
      const lines = (tail + text).split('\n');
      tail = final ? '' : (lines.pop() ?? '');
      for (const line of lines) if (DONE_LINE.test(line)) probe.sawDone = true;
    };
    const watched = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(bytes, controller) {
          probe.bytes += bytes.byteLength;
          probe.onActivity?.();
          if (!probe.sawDone) look(decoder.decode(bytes, { stream: true }), false);
          controller.enqueue(bytes);
        },
        flush() {
          if (!probe.sawDone) look(decoder.decode(), true);
        },
      }),
    );
    return new Response(watched, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}
