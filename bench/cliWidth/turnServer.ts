import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

// The width benchmark's endpoint on 127.0.0.1: every chat completion is answered after the same
// fixed latency. The planner gets the plan, the aggregator a sentence, and each step's executor
// turns go: first a read_file call (streamed the way OpenAI streams), then, once the request
// ends with the tool's result, a streamed answer. It is deliberately cheap (no validation, no
// JSON parsing) so it takes little of the CPU the clients share with it, and it notes the times the
// benchmark needs: when the plan went out and when the aggregator was asked.

export interface RunTimes {
  /** performance.now() when the planner's response ended (the steps may start). */
  planSentAt?: number;
  /** performance.now() when the aggregator request arrived (every step had ended). */
  aggregatorAt?: number;
  executorRequests: number;
  /** Requests whose `x-cortex-purpose` was none of planner, executor, aggregator. */
  otherRequests: number;
  /** The system prompt and tool definitions of the run's first executor request. */
  requestShape?: RequestShape;
}

/** What every executor request of a run carries besides its own conversation. */
export interface RequestShape {
  system: string;
  tools: unknown[];
}

export interface TurnServer {
  baseUrl: string;
  /** Serves `plan` from now on and starts new times. */
  reset(plan: unknown): void;
  times(): RunTimes;
  close(): Promise<void>;
}

const MODEL = 'bench-model';

function chunk(delta: Record<string, unknown>, finishReason: string | null = null): string {
  return `data: ${JSON.stringify({ id: 'chatcmpl-width', object: 'chat.completion.chunk', created: 1_760_000_000, model: MODEL, system_fingerprint: 'fp_width', choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }] })}\n\n`;
}

const USAGE = `data: ${JSON.stringify({ id: 'chatcmpl-width', object: 'chat.completion.chunk', created: 1_760_000_000, model: MODEL, choices: [], usage: { prompt_tokens: 900, completion_tokens: 20, total_tokens: 920 } })}\n\n`;
const ANSWER = [
  chunk({ role: 'assistant', content: '' }),
  chunk({ content: 'Read it: ' }),
  chunk({ content: 'the notes say hello.' }),
  chunk({}, 'stop'),
  USAGE,
  'data: [DONE]\n\n',
].join('');

function toolCallTurn(id: string): string {
  const args = JSON.stringify({ path: 'notes.txt' });
  return [
    chunk({ role: 'assistant', content: null }),
    chunk({ tool_calls: [{ index: 0, id, type: 'function', function: { name: 'read_file', arguments: '' } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: args.slice(0, 9) } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: args.slice(9) } }] }),
    chunk({}, 'tool_calls'),
    USAGE,
    'data: [DONE]\n\n',
  ].join('');
}

function completion(content: string): string {
  return JSON.stringify({
    id: 'chatcmpl-width',
    object: 'chat.completion',
    created: 1_760_000_000,
    model: MODEL,
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 500, completion_tokens: 50, total_tokens: 550 },
  });
}

function requestShapeOf(latin1Body: string): RequestShape {
  const request = JSON.parse(Buffer.from(latin1Body, 'latin1').toString('utf8')) as { messages: Array<{ role: string; content: string }>; tools?: unknown[] };
  const system = request.messages.find((message) => message.role === 'system');
  if (!system || !request.tools) throw new Error('an executor request without a system prompt or tools: the floor could not send the same requests');
  return { system: system.content, tools: request.tools };
}

export async function startTurnServer(latencyMs: number): Promise<TurnServer> {
  let planText = '{}';
  let times: RunTimes = { executorRequests: 0, otherRequests: 0 };
  let calls = 0;
  const sockets = new Set<Socket>();
  const server = http.createServer({ keepAlive: true, noDelay: true }, (req, res) => {
    const purpose = req.headers['x-cortex-purpose'];
    if (purpose === 'aggregator') times.aggregatorAt ??= performance.now();
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      const body = Buffer.concat(parts).toString('latin1');
      setTimeout(() => {
        if (purpose === 'executor') {
          times.executorRequests++;
          // Parsed once per run (the floor then sends the same system prompt and tools).
          times.requestShape ??= requestShapeOf(body);
          // A request that ends with a tool result gets the answer; otherwise the step asks for the
          // file. The last `"role":"` of the body is the last message's (strings inside it are
          // escaped, and the tool specs after the messages have no role).
          const role = body.lastIndexOf('"role":"');
          const answered = body.startsWith('tool"', role + 8);
          res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
          res.end(answered ? ANSWER : toolCallTurn(`call_w${calls++}`));
          return;
        }
        if (purpose !== 'planner' && purpose !== 'aggregator') times.otherRequests++;
        const text = completion(purpose === 'planner' ? planText : 'All steps are done.');
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(text, () => {
          if (purpose === 'planner') times.planSentAt = performance.now();
        });
      }, latencyMs);
    });
  });
  server.keepAliveTimeout = 60_000;
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    reset(plan) {
      planText = JSON.stringify(plan);
      times = { executorRequests: 0, otherRequests: 0 };
    },
    times: () => times,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
