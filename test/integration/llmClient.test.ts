import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { CLI_LLM_HINTS } from '../../src/cli/cliHints';
import { LlmError, type ChatRequest, type ToolSpec } from '../../src/core/llm/llmTypes';
import { createOpenAiClient, type OpenAiClientOptions } from '../../src/core/llm/openAiClient';
import { chunk, providerShapes, usageChunk } from '../fixtures/providerShapes';
import { call, error, message, sequence, toolCalls } from '../support/scriptedReplies';
import { startScriptedServer, type Reply, type ScriptedServer } from '../support/scriptedServer';
import { assertMatchesShape } from '../unit/llm/shapeAssertions';

// The OpenAI client through the real `openai` SDK against the scripted SSE server on 127.0.0.1:
// ingestion of every provider shape, failover, retries, broken and hanging streams, cancellation.

const tools: ToolSpec[] = [
  {
    type: 'function',
    function: { name: 'read_file', description: 'Read a file', parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } },
  },
];
const base: Omit<ChatRequest, 'purpose'> = { messages: [{ role: 'user', content: 'do it' }], tools };

function clientFor(server: ScriptedServer, extra: Partial<OpenAiClientOptions> = {}) {
  return createOpenAiClient({
    baseUrl: server.baseUrl,
    model: 'scripted-model',
    fallbackModels: [],
    requestTimeoutMs: 5_000,
    streamIdleTimeoutMs: 5_000,
    maxRetries: 2,
    retryBaseDelayMs: 1,
    ...extra,
  });
}

async function rejection(promise: Promise<unknown>): Promise<LlmError> {
  try {
    await promise;
  } catch (e) {
    assert.ok(e instanceof LlmError, `expected an LlmError, got ${String(e)}`);
    return e;
  }
  assert.fail('expected the request to fail');
}

describe('openAiClient (real SDK, scripted SSE server)', function () {
  this.timeout(20_000);
  let server: ScriptedServer;
  afterEach(async () => {
    if (server) await server.close();
  });

  describe('ingestion of every provider shape over SSE', () => {
    for (const shape of providerShapes) {
      it(`${shape.name} [${shape.source}]`, async () => {
        server = await startScriptedServer(() => ({ kind: 'chunks', chunks: shape.chunks }));
        const response = await clientFor(server).chat({ ...base, purpose: 'executor', stepId: 's1', batch: 11 });
        assertMatchesShape(response, shape, 11);
        assert.equal(response.usedModel, 'scripted-model');
        assert.equal(server.chatRequests().length, 1);
      });
    }
  });

  describe('requests', () => {
    it('streams with stream_options, tags purpose and step, and sends a placeholder key', async () => {
      server = await startScriptedServer(() => toolCalls(call('read_file', { path: 'a.ts' }, 'call_1'), call('read_file', { path: 'b.ts' })));
      const response = await clientFor(server).chat({ ...base, purpose: 'executor', stepId: 'step-7', batch: 3 });
      const [req] = server.chatRequests();
      assert.equal(req.headers['x-cortex-purpose'], 'executor');
      assert.equal(req.headers['x-cortex-step'], 'step-7');
      assert.equal(req.headers.authorization, 'Bearer not-needed');
      assert.equal(req.body.stream, true);
      assert.deepEqual(req.body.stream_options, { include_usage: true });
      assert.equal(req.body.tools.length, 1);
      assert.equal('temperature' in req.body, false);
      assert.deepEqual(
        response.toolCalls.map((c) => [c.id, c.name, c.arguments]),
        [
          ['call_1', 'read_file', { path: 'a.ts' }],
          ['call_0_1', 'read_file', { path: 'b.ts' }],
        ],
      );
      assert.deepEqual(response.usage, { promptTokens: 10, completionTokens: 5 });
      assert.equal(response.finishReason, 'tool_calls');
      assert.deepEqual(
        response.attempts.map((a) => [a.model, a.ok]),
        [['scripted-model', true]],
      );
    });

    it('sends every streamed request of a client with the key, the SDK headers and only its own step', async () => {
      server = await startScriptedServer(() => message('done'), { apiKey: 'sk-stream' });
      const client = clientFor(server, { apiKey: 'sk-stream' });
      await client.chat({ ...base, purpose: 'executor', stepId: 'step-1' });
      await client.chat({ ...base, purpose: 'aggregator' });
      await client.chat({ ...base, purpose: 'executor', stepId: 'step-2', messages: [{ role: 'user', content: 'second' }] });
      const requests = server.chatRequests();
      assert.deepEqual(
        requests.map((r) => [r.headers['x-cortex-purpose'], r.headers['x-cortex-step'], r.headers.authorization, r.headers['content-type']]),
        [
          ['executor', 'step-1', 'Bearer sk-stream', 'application/json'],
          ['aggregator', undefined, 'Bearer sk-stream', 'application/json'],
          ['executor', 'step-2', 'Bearer sk-stream', 'application/json'],
        ],
      );
      for (const r of requests) assert.match(String(r.headers['user-agent']), /^OpenAI\/JS /);
      assert.equal(requests[2].body.messages[0].content, 'second');
    });

    it('leaves out x-cortex-step without a step and sends the configured temperature and key', async () => {
      server = await startScriptedServer(() => message('plan'), { apiKey: 'sk-test' });
      await clientFor(server, { apiKey: 'sk-test', temperature: 0.3 }).chat({ messages: base.messages, purpose: 'planner', stream: false });
      const [req] = server.chatRequests();
      assert.equal(req.headers['x-cortex-step'], undefined);
      assert.equal(req.headers['x-cortex-purpose'], 'planner');
      assert.equal(req.body.temperature, 0.3);
      assert.notEqual(req.body.stream, true);
      assert.equal(req.body.stream_options, undefined);
    });

    it('never lets OPENAI_BASE_URL override the configured base URL', async () => {
      server = await startScriptedServer(() => message('here'));
      const saved = process.env.OPENAI_BASE_URL;
      process.env.OPENAI_BASE_URL = 'http://127.0.0.1:9/v1';
      try {
        const response = await clientFor(server).chat({ ...base, purpose: 'executor' });
        assert.equal(response.content, 'here');
      } finally {
        if (saved === undefined) delete process.env.OPENAI_BASE_URL;
        else process.env.OPENAI_BASE_URL = saved;
      }
    });

    it('reads non-streamed replies through the same accumulator (object arguments, no index)', async () => {
      server = await startScriptedServer(() => ({
        kind: 'raw',
        body: JSON.stringify({
          id: 'chatcmpl-x',
          object: 'chat.completion',
          created: 1,
          model: 'scripted-model',
          choices: [
            {
              index: 0,
              message: {
                role: 'assistant',
                content: 'ok',
                tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read_file', arguments: { path: 'x' } } }],
              },
              finish_reason: 'tool_calls',
            },
          ],
          usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 },
        }),
      }));
      const response = await clientFor(server).chat({ ...base, purpose: 'tool-call-repair', stream: false });
      assert.equal(response.content, 'ok');
      assert.deepEqual(
        response.toolCalls.map((c) => [c.id, c.arguments, c.rawArguments]),
        [['c1', { path: 'x' }, '{"path":"x"}']],
      );
      assert.deepEqual(response.usage, { promptTokens: 1, completionTokens: 2 });
    });

    it('asks for json_object and drops response_format once if the endpoint refuses it, then stops sending it', async () => {
      server = await startScriptedServer(() => message('{"steps":[]}'), { rejectResponseFormat: true });
      const client = clientFor(server);
      const first = await client.chat({ messages: base.messages, purpose: 'planner', stream: false, jsonResponse: true });
      assert.equal(first.content, '{"steps":[]}');
      const requests = server.chatRequests();
      assert.deepEqual(requests[0].body.response_format, { type: 'json_object' });
      assert.equal(requests[1].body.response_format, undefined);
      assert.deepEqual(
        first.attempts.map((a) => [a.ok, a.status]),
        [
          [false, 400],
          [true, undefined],
        ],
      );
      assert.ok(
        first.notes.some((n) => n.includes('response_format')),
        first.notes.join('\n'),
      );
      await client.chat({ messages: base.messages, purpose: 'planner', stream: false, jsonResponse: true });
      assert.equal(server.chatRequests().length, 3);
      assert.equal(server.chatRequests()[2].body.response_format, undefined);
    });

    it('retries once without stream_options when the endpoint rejects them', async () => {
      server = await startScriptedServer((req) =>
        req.body.stream_options ? error(400, 'Unrecognized request argument supplied: stream_options') : message('fine'),
      );
      const response = await clientFor(server).chat({ ...base, purpose: 'executor' });
      assert.equal(response.content, 'fine');
      const requests = server.chatRequests();
      assert.equal(requests.length, 2);
      assert.equal(requests[1].body.stream_options, undefined);
      assert.equal(requests[1].body.stream, true);
    });
  });

  describe('failover (docs/design.md, “LLM requests: retries and failover”)', () => {
    it('fails over on a 404 for an unknown model and records requested, used and every attempt', async () => {
      server = await startScriptedServer(() => message('from fallback'), { models: ['fallback-a'] });
      const response = await clientFor(server, { model: 'missing-model', fallbackModels: ['fallback-a'] }).chat({ ...base, purpose: 'executor' });
      assert.equal(response.content, 'from fallback');
      assert.equal(response.requestedModel, 'missing-model');
      assert.equal(response.usedModel, 'fallback-a');
      assert.deepEqual(
        response.attempts.map((a) => [a.model, a.ok, a.status]),
        [
          ['missing-model', false, 404],
          ['fallback-a', true, undefined],
        ],
      );
      assert.deepEqual(
        server.chatRequests().map((r) => r.body.model),
        ['missing-model', 'fallback-a'],
      );
    });

    it('keeps the model that answered: later requests do not ask the missing one again', async () => {
      server = await startScriptedServer(() => message('from fallback'), { models: ['fallback-a'] });
      const client = clientFor(server, { model: 'missing-model', fallbackModels: ['fallback-a'] });
      const first = await client.chat({ ...base, purpose: 'planner', stream: false });
      const second = await client.chat({ ...base, purpose: 'executor' });
      const third = await client.chat({ ...base, purpose: 'aggregator', stream: false });
      assert.deepEqual(
        server.chatRequests().map((r) => r.body.model),
        ['missing-model', 'fallback-a', 'fallback-a', 'fallback-a'],
      );
      assert.equal(first.requestedModel, 'missing-model');
      for (const later of [second, third]) {
        assert.equal(later.requestedModel, 'fallback-a', 'a later request starts with the model that worked');
        assert.deepEqual(
          later.attempts.map((a) => a.model),
          ['fallback-a'],
        );
      }
      assert.ok(!first.notes.some((n) => /fail/i.test(n)), 'the failover is said by the run, once, not as a note per request');
    });

    it('records the error kind of every failed attempt', async () => {
      server = await startScriptedServer(() => message('ok'), { models: ['b'] });
      const response = await clientFor(server, { model: 'a', fallbackModels: ['b'] }).chat({ ...base, purpose: 'executor' });
      assert.deepEqual(
        response.attempts.map((a) => (a as { errorKind?: string }).errorKind),
        ['not_found', undefined],
      );
    });

    it('fails over on a 400 about tools and on a 422 about the schema', async () => {
      server = await startScriptedServer((req) => {
        if (req.body.model === 'no-tools') return error(400, 'registry.ollama.ai/library/gemma:2b does not support tools');
        if (req.body.model === 'strict') return error(422, 'Invalid schema for function read_file: additionalProperties required');
        return message('third time');
      });
      const response = await clientFor(server, { model: 'no-tools', fallbackModels: ['strict', 'works'] }).chat({ ...base, purpose: 'executor' });
      assert.equal(response.usedModel, 'works');
      assert.deepEqual(
        response.attempts.map((a) => [a.model, a.status]),
        [
          ['no-tools', 400],
          ['strict', 422],
          ['works', undefined],
        ],
      );
    });

    it('reports every model tried when all fallbacks are unknown', async () => {
      server = await startScriptedServer(() => message('never'), { models: ['other'] });
      const err = await rejection(clientFor(server, { model: 'a', fallbackModels: ['b'] }).chat({ ...base, purpose: 'executor' }));
      assert.equal(err.kind, 'not_found');
      assert.equal(err.status, 404);
      assert.match(err.message, /Tried 'a', 'b'/);
      assert.equal(err.attempts.length, 2);
    });

    it('never fails over on 401, with a message saying how to fix the key', async () => {
      server = await startScriptedServer(() => message('never'), { apiKey: 'sk-right' });
      const err = await rejection(clientFor(server, { apiKey: 'sk-wrong', fallbackModels: ['other'] }).chat({ ...base, purpose: 'executor' }));
      assert.equal(err.kind, 'auth');
      assert.equal(err.status, 401);
      assert.equal(err.message, "The endpoint rejected the API key (401). Run 'Cortex: Set API key' or set OPENAI_API_KEY.");
      assert.equal(server.chatRequests().length, 1);
    });

    it('words the 401 remedy for the host it runs in (the CLI names the environment variable)', async () => {
      server = await startScriptedServer(() => message('never'), { apiKey: 'sk-right' });
      const err = await rejection(clientFor(server, { apiKey: 'sk-wrong', hints: CLI_LLM_HINTS }).chat({ ...base, purpose: 'executor' }));
      assert.equal(err.message, 'The endpoint rejected the API key (401). Set OPENAI_API_KEY to a key this endpoint accepts.');
    });

    it('never fails over on 403 or on a 400 that is not about tools', async () => {
      for (const reply of [
        error(403, 'Project does not have access to this model'),
        error(400, "Invalid 'messages[1].tool_calls': tool call ids must be unique"),
      ]) {
        server = await startScriptedServer(sequence(reply, message('never')));
        const err = await rejection(clientFor(server, { fallbackModels: ['other'] }).chat({ ...base, purpose: 'executor' }));
        assert.ok(err.kind === 'auth' || err.kind === 'bad_request', err.kind);
        assert.equal(err.attempts.length, 1, `${err.kind}: ${JSON.stringify(err.attempts)}`);
        await server.close();
      }
    });

    it('does not switch model after the stream started: a break mid-stream retries the same model', async () => {
      const partial = [
        chunk({ role: 'assistant', content: null }),
        chunk({ tool_calls: [{ index: 0, id: 'half', type: 'function', function: { name: 'read_file', arguments: '{"pa' } }] }),
      ];
      server = await startScriptedServer(sequence({ kind: 'reset', afterChunks: partial }, toolCalls(call('read_file', { path: 'ok' }, 'whole'))));
      const response = await clientFor(server, { fallbackModels: ['other'] }).chat({ ...base, purpose: 'executor' });
      assert.deepEqual(
        server.chatRequests().map((r) => r.body.model),
        ['scripted-model', 'scripted-model'],
      );
      assert.deepEqual(
        response.toolCalls.map((c) => [c.id, c.arguments]),
        [['whole', { path: 'ok' }]],
      );
      assert.equal(response.attempts[0].ok, false);
      assert.equal(response.attempts[1].retry, 1);
    });
  });

  describe('retries and broken streams', () => {
    it('retries 429 (honouring retry-after-ms) and 5xx, then succeeds', async () => {
      server = await startScriptedServer(
        sequence(error(429, 'Rate limit reached', { headers: { 'retry-after-ms': '20' } }), error(503, 'overloaded'), message('finally')),
      );
      const started = Date.now();
      const response = await clientFor(server).chat({ ...base, purpose: 'executor' });
      assert.equal(response.content, 'finally');
      assert.deepEqual(
        response.attempts.map((a) => [a.status, a.retry]),
        [
          [429, undefined],
          [503, 1],
          [undefined, 2],
        ],
      );
      assert.ok(Date.now() - started >= 20, 'waited for retry-after-ms');
    });

    it('gives up after maxRetries with the last error', async () => {
      server = await startScriptedServer(() => error(500, 'internal boom'));
      const err = await rejection(clientFor(server, { maxRetries: 2 }).chat({ ...base, purpose: 'executor' }));
      assert.equal(err.kind, 'server');
      assert.equal(err.status, 500);
      assert.equal(err.attempts.length, 3);
      assert.match(err.message, /internal boom/);
      assert.match(err.message, /Gave up after 3 attempts/);
    });

    it('obeys x-should-retry: false', async () => {
      server = await startScriptedServer(() => error(500, 'script exhausted', { headers: { 'x-should-retry': 'false' } }));
      const err = await rejection(clientFor(server).chat({ ...base, purpose: 'executor' }));
      assert.equal(err.attempts.length, 1);
    });

    it('ends the turn as an error when the connection resets mid-stream, never returning the half-received call', async () => {
      const partial = [chunk({ tool_calls: [{ index: 0, id: 'half', type: 'function', function: { name: 'read_file', arguments: '{"path":"a' } }] })];
      server = await startScriptedServer(() => ({ kind: 'reset', afterChunks: partial }));
      const err = await rejection(clientFor(server, { maxRetries: 1 }).chat({ ...base, purpose: 'executor' }));
      assert.equal(err.kind, 'stream_broken');
      assert.equal(err.attempts.length, 2);
      assert.match(err.message, /broke off/);
    });

    it('treats a stream that ends without [DONE] and without finish_reason as broken, and retries', async () => {
      const cut: Reply = {
        kind: 'chunks',
        chunks: [chunk({ tool_calls: [{ index: 0, id: 'cut', type: 'function', function: { name: 'read_file', arguments: '{"path":' } }] })],
        done: false,
      };
      server = await startScriptedServer(sequence(cut, toolCalls(call('read_file', { path: 'z' }, 'full'))));
      const response = await clientFor(server).chat({ ...base, purpose: 'executor' });
      assert.deepEqual(
        response.toolCalls.map((c) => c.id),
        ['full'],
      );
      assert.match(response.attempts[0].error ?? '', /ended before the model finished/);
    });

    it('accepts a stream without [DONE] that did send finish_reason', async () => {
      server = await startScriptedServer(() => ({ kind: 'chunks', chunks: [chunk({ content: 'hi' }), chunk({}, 'stop'), usageChunk(1, 1)], done: false }));
      const response = await clientFor(server).chat({ ...base, purpose: 'executor' });
      assert.equal(response.content, 'hi');
      assert.equal(response.attempts.length, 1);
    });

    it('stops a stream that goes silent (idle timeout) and never hangs', async () => {
      const partial = [chunk({ tool_calls: [{ index: 0, id: 'h', type: 'function', function: { name: 'read_file', arguments: '{"p' } }] })];
      server = await startScriptedServer(() => ({ kind: 'hang', afterChunks: partial }));
      const started = Date.now();
      const err = await rejection(clientFor(server, { streamIdleTimeoutMs: 200, maxRetries: 1 }).chat({ ...base, purpose: 'executor' }));
      assert.equal(err.kind, 'timeout');
      assert.match(err.message, /sent nothing for 0\.2 s/);
      assert.equal(err.attempts.length, 2);
      assert.ok(Date.now() - started < 5_000, `took ${Date.now() - started} ms`);
    });

    it('times out a request whose response never starts', async () => {
      server = await startScriptedServer(() => ({ ...message('late'), delayMs: 3_000 }));
      const err = await rejection(clientFor(server, { requestTimeoutMs: 200, maxRetries: 0 }).chat({ ...base, purpose: 'planner', stream: false }));
      assert.equal(err.kind, 'timeout');
      assert.match(err.message, /did not answer within 0\.2 s/);
    });

    it('retries an error event sent inside the stream', async () => {
      server = await startScriptedServer(
        sequence({ kind: 'chunks', chunks: [{ error: { message: 'upstream overloaded', type: 'server_error' } }] }, message('after')),
      );
      const response = await clientFor(server).chat({ ...base, purpose: 'executor' });
      assert.equal(response.content, 'after');
      assert.match(response.attempts[0].error ?? '', /upstream overloaded/);
    });

    it('refuses a non-streamed body that is not a chat completion, and a stream answered with plain JSON', async () => {
      server = await startScriptedServer(() => ({ kind: 'raw', headers: { 'content-type': 'text/html' }, body: '<html>Welcome to nginx</html>' }));
      const html = await rejection(clientFor(server).chat({ ...base, purpose: 'planner', stream: false }));
      assert.equal(html.kind, 'bad_response');
      assert.match(html.message, /not an OpenAI chat completion.*nginx/);
      await server.close();
      server = await startScriptedServer(() => ({
        kind: 'raw',
        body: JSON.stringify({ choices: [{ index: 0, message: { role: 'assistant', content: 'x' } }] }),
      }));
      const json = await rejection(clientFor(server).chat({ ...base, purpose: 'executor' }));
      assert.equal(json.kind, 'bad_response');
      assert.match(json.message, /instead of an event stream/);
      assert.equal(json.attempts.length, 1);
    });

    it('does not retry a response that is not a chat completion', async () => {
      server = await startScriptedServer(() => ({ kind: 'chunks', chunks: ['this is not json'] }));
      const err = await rejection(clientFor(server).chat({ ...base, purpose: 'executor' }));
      assert.equal(err.kind, 'bad_response');
      assert.equal(err.attempts.length, 1);
    });
  });

  describe('cancellation and unreachable endpoints', () => {
    it('cancels a streaming request at once and never retries a cancel', async () => {
      server = await startScriptedServer(() => ({ kind: 'hang', afterChunks: [chunk({ content: 'thinking' })] }));
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 100);
      const started = Date.now();
      const err = await rejection(clientFor(server, { maxRetries: 3 }).chat({ ...base, purpose: 'executor', signal: controller.signal }));
      assert.equal(err.kind, 'cancelled');
      assert.equal(err.attempts.length, 1);
      assert.equal(server.chatRequests().length, 1);
      assert.ok(Date.now() - started < 2_000);
    });

    it('cancels during a retry backoff and before sending', async () => {
      server = await startScriptedServer(() => error(503, 'busy'));
      const controller = new AbortController();
      const pending = clientFor(server, { retryBaseDelayMs: 5_000 }).chat({ ...base, purpose: 'executor', signal: controller.signal });
      setTimeout(() => controller.abort(), 150);
      const err = await rejection(pending);
      assert.equal(err.kind, 'cancelled');
      assert.equal(server.chatRequests().length, 1);

      const already = new AbortController();
      already.abort();
      const early = await rejection(clientFor(server).chat({ ...base, purpose: 'executor', signal: already.signal }));
      assert.equal(early.kind, 'cancelled');
      assert.equal(server.chatRequests().length, 1);
    });

    it('says plainly when the endpoint cannot be reached', async () => {
      const port = await freePort();
      const client = createOpenAiClient({
        baseUrl: `http://127.0.0.1:${port}/v1`,
        model: 'm',
        fallbackModels: ['n'],
        requestTimeoutMs: 2_000,
        streamIdleTimeoutMs: 2_000,
        maxRetries: 2,
        retryBaseDelayMs: 1,
      });
      const err = await rejection(client.chat({ ...base, purpose: 'executor' }));
      assert.equal(err.kind, 'unreachable');
      assert.equal(
        err.message,
        `Cannot reach the LLM endpoint http://127.0.0.1:${port}/v1 (ECONNREFUSED). Check cortex.llm.baseUrl and that the server is running.`,
      );
      assert.equal(err.attempts.length, 1, 'no retry, no failover for a refused connection');
    });
  });
});

/** A port nothing listens on (bound, then released). */
async function freePort(): Promise<number> {
  const probe = http.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}
