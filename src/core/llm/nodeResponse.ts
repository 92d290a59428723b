import type { Readable } from 'node:stream';

// The Response nodeFetch.ts gives the openai SDK: what the SDK uses of a Response (status, ok,
// headers, url, body, text(), json()) and no more, over the Node stream of the body. The
// built-in Response and Headers run a good deal of code per request (argument checks,
// normalisation) that a run of many short requests pays again and again, mostly before the
// engine has optimised it. `nodeBodyOf` hands the stream reader the Node stream itself.

/** Response headers: names in lower case, repeated ones joined with ", " (as Headers.get does). */
export class ResponseHeaders {
  private readonly byName = new Map<string, string>();

  constructor(raw: readonly string[]) {
    for (let i = 0; i + 1 < raw.length; i += 2) {
      const name = raw[i].toLowerCase();
      const known = this.byName.get(name);
      this.byName.set(name, known === undefined ? raw[i + 1] : `${known}, ${raw[i + 1]}`);
    }
  }

  get(name: string): string | null {
    return this.byName.get(name.toLowerCase()) ?? null;
  }

  has(name: string): boolean {
    return this.byName.has(name.toLowerCase());
  }

  /** Sorted by name, as Headers iterates. */
  *entries(): IterableIterator<[string, string]> {
    for (const name of [...this.byName.keys()].sort()) yield [name, this.byName.get(name)!];
  }

  *keys(): IterableIterator<string> {
    for (const [name] of this.entries()) yield name;
  }

  *values(): IterableIterator<string> {
    for (const [, value] of this.entries()) yield value;
  }

  forEach(callback: (value: string, name: string, headers: ResponseHeaders) => void): void {
    for (const [name, value] of this.entries()) callback(value, name, this);
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }
}

const sources = new WeakMap<object, Readable>();

/** The Node stream under a response's body, while nobody has read it otherwise. */
export function nodeBodyOf(response: Response): Readable | undefined {
  const source = sources.get(response);
  return source && !response.bodyUsed && !(response as unknown as NodeResponse).webBodyStarted ? source : undefined;
}

export class NodeResponse {
  readonly ok: boolean;
  readonly redirected = false;
  readonly type = 'basic';
  bodyUsed = false;
  /** Someone read the body as a web stream. */
  webBodyStarted = false;
  private web: ReadableStream<Uint8Array> | null | undefined;

  constructor(
    readonly status: number,
    readonly statusText: string,
    readonly headers: ResponseHeaders,
    private readonly source: Readable | null,
    readonly url: string,
  ) {
    this.ok = status >= 200 && status <= 299;
    if (source) sources.set(this, source);
  }

  /** A web stream over the Node body, made when first asked for; it reads nothing until read. */
  get body(): ReadableStream<Uint8Array> | null {
    if (this.web === undefined) this.web = this.source ? this.webStream(this.source) : null;
    return this.web;
  }

  async text(): Promise<string> {
    return new TextDecoder().decode(await this.bytes());
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text()) as unknown;
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    const bytes = await this.bytes();
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  }

  async blob(): Promise<Blob> {
    return new Blob([await this.arrayBuffer()], { type: this.headers.get('content-type') ?? '' });
  }

  /** The whole body (once, like any Response). */
  async bytes(): Promise<Uint8Array> {
    if (this.bodyUsed) throw new TypeError('Body is unusable: Body has already been read');
    this.bodyUsed = true;
    if (!this.source) return new Uint8Array(0);
    const parts: Buffer[] = [];
    for await (const part of this.source) parts.push(part as Buffer);
    return Buffer.concat(parts);
  }

  clone(): never {
    throw new TypeError('This response cannot be cloned.');
  }

  private webStream(source: Readable): ReadableStream<Uint8Array> {
    let chunks: AsyncIterator<Buffer, undefined> | undefined;
    return new ReadableStream<Uint8Array>(
      {
        pull: async (controller) => {
          this.webBodyStarted = true;
          chunks ??= source[Symbol.asyncIterator]() as AsyncIterator<Buffer, undefined>;
          try {
            const next = await chunks.next();
            if (next.done) controller.close();
            else controller.enqueue(new Uint8Array(next.value.buffer, next.value.byteOffset, next.value.byteLength));
          } catch (error) {
            controller.error(error);
          }
        },
        cancel: () => {
          this.webBodyStarted = true;
          source.destroy();
        },
      },
      { highWaterMark: 0 },
    );
  }
}
