import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import http from 'node:http';
import OpenAI from 'openai';
import type { createOpenAiClient } from '../../src/core/llm/openAiClient';
import type { ToolSpec } from '../../src/core/llm/llmTypes';
import type { RecordedCall } from './recording';

// The clients the streaming benchmark compares, each reading one streamed chat completion from
// `baseUrl` and returning the tool calls it assembled (ids, names and arguments as text) and the
// text, so the benchmark can check that every one got byte-identical results.

export interface Assembled {
  content: string;
  calls: RecordedCall[];
  /** Network reads seen (the floor counts them, to show the read mode took effect). */
  reads?: number;
  events?: number;
}

export type Contender = (baseUrl: string) => Promise<Assembled>;

const PROMPT = 'Read src/config/settings.ts and src/io/loader.ts, then write src/io/loaders.ts.';
const TOOLS: ToolSpec[] = [
  {
    type: 'function',
    function: {
      name: 'read_file',
      description: 'Read a text file of the workspace.',
      parameters: { type: 'object', properties: { path: { type: 'string' }, maxBytes: { type: 'integer' } }, required: ['path'] },
    },
  },
  {
    type: 'function',
    function: {
      name: 'write_file',
      description: 'Write a text file of the workspace.',
      parameters: { type: 'object', properties: { path: { type: 'string' }, content: { type: 'string' } }, required: ['path', 'content'] },
    },
  },
];
const REQUEST_BODY = JSON.stringify({
  model: 'bench',
  messages: [{ role: 'user', content: PROMPT }],
  tools: TOOLS,
  stream: true,
  stream_options: { include_usage: true },
});

/**
 * The floor: node:http, the bytes decoded, split into lines, one JSON.parse per `data:` line. It
 * assembles nothing; what it returns is only counted.
 */
export function floorClient(): Contender {
  const agent = new http.Agent({ keepAlive: true });
  return (baseUrl) =>
    new Promise((resolve, reject) => {
      const url = new URL(`${baseUrl}/chat/completions`);
      const req = http.request(
        url,
        { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(REQUEST_BODY) } },
        (res) => {
          const decoder = new TextDecoder();
          let tail = '';
          let reads = 0;
          let events = 0;
          res.on('data', (bytes: Buffer) => {
            reads++;
            const lines = (tail + decoder.decode(bytes, { stream: true })).split('\n');
            tail = lines.pop() ?? '';
            for (const line of lines) {
              if (!line.startsWith('data: ') || line === 'data: [DONE]') continue;
              const chunk = JSON.parse(line.slice(6)) as { choices: unknown[] };
              events += chunk.choices.length >= 0 ? 1 : 0;
            }
          });
          res.on('end', () => resolve({ content: '', calls: [], reads, events }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(REQUEST_BODY);
    });
}

/**
 * Cortex's own client (src/core/llm/openAiClient.ts), as the agent uses it, made by `create` from
 * a bundle of it (see streaming.bench.ts: like the CLI and the extension, it has its own copy of
 * the openai SDK).
 */
export function cortexClient(create: typeof createOpenAiClient): Contender {
  const clients = new Map<string, ReturnType<typeof createOpenAiClient>>();
  let batch = 0;
  return async (baseUrl) => {
    let client = clients.get(baseUrl);
    if (!client) {
      client = create({ baseUrl, model: 'bench', requestTimeoutMs: 30_000, streamIdleTimeoutMs: 30_000, maxRetries: 0 });
      clients.set(baseUrl, client);
    }
    const response = await client.chat({
      purpose: 'executor',
      stepId: 'bench',
      messages: [{ role: 'user', content: PROMPT }],
      tools: TOOLS,
      stream: true,
      batch: batch++,
    });
    return { content: response.content, calls: response.toolCalls.map((c) => ({ id: c.id, name: c.name, arguments: c.rawArguments })) };
  };
}

/** The `openai` SDK's own stream helper, which assembles the completion as it streams. */
export function openAiStreamClient(): Contender {
  const clients = new Map<string, OpenAI>();
  return async (baseUrl) => {
    let client = clients.get(baseUrl);
    if (!client) {
      client = new OpenAI({ apiKey: 'not-needed', baseURL: baseUrl, maxRetries: 0 });
      clients.set(baseUrl, client);
    }
    const stream = client.chat.completions.stream({
      model: 'bench',
      messages: [{ role: 'user', content: PROMPT }],
      tools: TOOLS,
      stream_options: { include_usage: true },
    });
    const completion = await stream.finalChatCompletion();
    const message = completion.choices[0].message;
    return {
      content: message.content ?? '',
      calls: (message.tool_calls ?? []).map((c) =>
        c.type === 'function' ? { id: c.id, name: c.function.name, arguments: c.function.arguments } : { id: c.id, name: '', arguments: '' },
      ),
    };
  };
}

/** Vercel's AI SDK provider for OpenAI-compatible endpoints, at the language-model level. */
export function aiSdkClient(): Contender {
  const models = new Map<string, ReturnType<ReturnType<typeof createOpenAICompatible>['chatModel']>>();
  return async (baseUrl) => {
    let model = models.get(baseUrl);
    if (!model) {
      model = createOpenAICompatible({ name: 'bench', baseURL: baseUrl, includeUsage: true }).chatModel('bench');
      models.set(baseUrl, model);
    }
    const { stream } = await model.doStream({
      prompt: [{ role: 'user', content: [{ type: 'text', text: PROMPT }] }],
      tools: TOOLS.map((t) => ({
        type: 'function' as const,
        name: t.function.name,
        description: t.function.description,
        inputSchema: t.function.parameters as never,
      })),
    });
    let content = '';
    const calls: RecordedCall[] = [];
    const reader = stream.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (value.type === 'text-delta') content += value.delta;
      else if (value.type === 'tool-call') calls.push({ id: value.toolCallId, name: value.toolName, arguments: value.input });
      else if (value.type === 'error') throw new Error(`ai-sdk stream error: ${String(value.error)}`);
    }
    return { content, calls };
  };
}
