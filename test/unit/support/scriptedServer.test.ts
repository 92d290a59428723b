import assert from 'node:assert/strict';
import OpenAI, { APIError } from 'openai';
import { startScriptedServer, type Handler, type ScriptedServer, type ScriptedServerOptions } from '../../support/scriptedServer';
import {
  assistantTurns,
  byStep,
  call,
  firstUserMessage,
  json,
  lastAssistant,
  message,
  route,
  sequence,
  streamError,
  toolCalls,
  toolMessages,
} from '../../support/scriptedReplies';

type Msg = OpenAI.Chat.Completions.ChatCompletionMessageParam;

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(handler?: Handler, options?: ScriptedServerOptions): Promise<{ server: ScriptedServer; client: OpenAI }> {
  server = await startScriptedServer(handler, options);
  return { server, client: new OpenAI({ baseURL: server.baseUrl, apiKey: 'test', maxRetries: 0 }) };
}

/** Runs `fn`, expecting an APIError; returns it. */
async function apiError(fn: () => Promise<unknown>): Promise<APIError> {
  try {
    await fn();
  } catch (err) {
    assert.ok(err instanceof APIError, `expected an APIError, got ${String(err)}`);
    return err;
  }
  assert.fail('expected the request to fail');
}

const user: Msg = { role: 'user', content: 'do the step' };
const assistantCalls = (...ids: string[]): Msg => ({
  role: 'assistant',
  content: null,
  tool_calls: ids.map((id) => ({ id, type: 'function' as const, function: { name: 'read_file', arguments: '{"path":"a.ts"}' } })),
});
const PNG_URL = 'data:image/png;base64,iVBORw0KGgo=';
const toolAnswer = (id: string): Msg => ({ role: 'tool', tool_call_id: id, content: 'ok' });
const readFileTool = {
  type: 'function' as const,
  function: { name: 'read_file', description: 'read', parameters: { type: 'object', properties: { path: { type: 'string' } } } },
};

describe('scriptedServer', () => {
  describe('replies', () => {
    it('streams two tool calls as id+name chunks then argument fragments that reassemble', async () => {
      const { client, server } = await start(() =>
        toolCalls(call('read_file', { path: 'src/a.ts' }, 'call_a'), call('grep', '{"pattern":"TODO","glob":"**/*.ts"}')),
      );
      const stream = await client.chat.completions.create({ model: 'm', messages: [user], stream: true, stream_options: { include_usage: true } });
      const calls = new Map<number, { id?: string; name?: string; args: string; fragments: number }>();
      let finish: string | null = null;
      let usage: unknown;
      for await (const chunk of stream) {
        if (chunk.usage) usage = chunk.usage;
        const choice = chunk.choices[0];
        if (!choice) continue;
        if (choice.finish_reason) finish = choice.finish_reason;
        for (const tc of choice.delta.tool_calls ?? []) {
          const acc = calls.get(tc.index) ?? { args: '', fragments: 0 };
          if (tc.id) acc.id = tc.id;
          if (tc.function?.name) acc.name = tc.function.name;
          if (tc.function?.arguments) {
            assert.ok(tc.function.arguments.length <= 7, `fragment too long: ${tc.function.arguments}`);
            acc.args += tc.function.arguments;
            acc.fragments++;
          }
          calls.set(tc.index, acc);
        }
      }
      assert.deepEqual([...calls.keys()], [0, 1]);
      assert.equal(calls.get(0)!.id, 'call_a');
      assert.equal(calls.get(0)!.name, 'read_file');
      assert.deepEqual(JSON.parse(calls.get(0)!.args), { path: 'src/a.ts' });
      assert.ok(calls.get(0)!.fragments > 1);
      assert.equal(calls.get(1)!.id, 'call_0_1');
      assert.equal(calls.get(1)!.name, 'grep');
      assert.equal(calls.get(1)!.args, '{"pattern":"TODO","glob":"**/*.ts"}');
      assert.equal(finish, 'tool_calls');
      assert.deepEqual(usage, { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 });
      assert.equal(server.requests[0].stream, true);
    });

    it('streams text content in fragments of fragmentSize ending with stop', async () => {
      const { client } = await start(() => message('Hello, streaming world!', { fragmentSize: 4 }));
      const stream = await client.chat.completions.create({ model: 'm', messages: [user], stream: true });
      const pieces: string[] = [];
      let finish: string | null = null;
      let sawUsage = false;
      for await (const chunk of stream) {
        if (chunk.usage) sawUsage = true;
        const choice = chunk.choices[0];
        if (choice?.delta.content) pieces.push(choice.delta.content);
        if (choice?.finish_reason) finish = choice.finish_reason;
      }
      assert.equal(pieces.join(''), 'Hello, streaming world!');
      assert.deepEqual(pieces.slice(0, 2), ['Hell', 'o, s']);
      assert.equal(finish, 'stop');
      assert.equal(sawUsage, false, 'usage only when stream_options.include_usage');
    });

    it('answers a non-streamed request with a chat.completion', async () => {
      const { client } = await start(() => ({
        kind: 'message',
        content: 'thinking',
        toolCalls: [call('read_file', { path: 'x' }, 'c1')],
        usage: { prompt_tokens: 3, completion_tokens: 4 },
        model: 'used-model',
      }));
      const res = await client.chat.completions.create({ model: 'asked-model', messages: [user] });
      assert.equal(res.object, 'chat.completion');
      assert.equal(res.model, 'used-model');
      assert.equal(res.choices[0].message.content, 'thinking');
      assert.equal(res.choices[0].finish_reason, 'tool_calls');
      assert.deepEqual(res.choices[0].message.tool_calls, [{ id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{"path":"x"}' } }]);
      assert.deepEqual(res.usage, { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 });
    });

    it('sends `chunks` verbatim: exactly the given objects, raw strings, and [DONE] only when asked', async () => {
      const odd = [
        { choices: [{ index: 0, delta: { tool_calls: [{ id: 'x', function: { name: 'read_file', arguments: { path: 'a' } } }] } }] },
        { choices: [{ index: 0, delta: { tool_calls: [{ index: '0', function: { arguments: '' } }] }, finish_reason: 'tool_calls' }] },
      ];
      const { client } = await start(
        sequence({ kind: 'chunks', chunks: odd }, { kind: 'chunks', chunks: odd }, { kind: 'chunks', chunks: [odd[0], '{"raw":true}'], done: false }),
      );
      const exact = await client.chat.completions.create({ model: 'm', messages: [user], stream: true }).asResponse();
      assert.equal(await exact.text(), odd.map((c) => `data: ${JSON.stringify(c)}\n\n`).join('') + 'data: [DONE]\n\n');

      // Through the SDK (which only fills a missing finish_reason with null) the same objects arrive.
      const received: unknown[] = [];
      for await (const chunk of await client.chat.completions.create({ model: 'm', messages: [user], stream: true })) received.push(chunk);
      assert.deepEqual(
        received,
        odd.map((c) => ({ choices: c.choices.map((choice) => ({ finish_reason: null, ...choice })) })),
      );

      const raw = await client.chat.completions.create({ model: 'm', messages: [user], stream: true }).asResponse();
      assert.equal(raw.headers.get('content-type')?.startsWith('text/event-stream'), true);
      assert.equal(await raw.text(), `data: ${JSON.stringify(odd[0])}\n\ndata: {"raw":true}\n\n`);
    });

    it('a reset mid-stream reaches the client as an error after the chunks sent', async () => {
      const first = { id: 'c', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: 'partial' }, finish_reason: null }] };
      const { client } = await start(() => ({ kind: 'reset', afterChunks: [first] }));
      const stream = await client.chat.completions.create({ model: 'm', messages: [user], stream: true });
      const got: string[] = [];
      await assert.rejects(async () => {
        for await (const chunk of stream) got.push(chunk.choices[0]?.delta.content ?? '');
      });
      assert.deepEqual(got, ['partial']);
    });

    it('serves parallel streams concurrently, recording arrival order', async () => {
      const { client, server } = await start(
        byStep({
          slow: () => message('slow answer', { delayMs: 80, fragmentSize: 3 }),
          fast: () => message('fast answer', { chunkDelayMs: 1, fragmentSize: 3 }),
        }),
      );
      const finished: string[] = [];
      const run = async (label: string) => {
        const stream = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: `run the ${label} step` }], stream: true });
        let text = '';
        for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
        finished.push(label);
        return text;
      };
      const [slow, fast] = await Promise.all([run('slow'), run('fast')]);
      assert.equal(slow, 'slow answer');
      assert.equal(fast, 'fast answer');
      assert.deepEqual(finished, ['fast', 'slow'], 'a delayed reply does not block another connection');
      assert.deepEqual(
        server.requests.map((r) => r.index),
        [0, 1],
      );
    });

    it('streamError sends an error event inside the stream that the SDK raises', async () => {
      const { client } = await start(() => streamError('upstream overloaded', [{ choices: [{ index: 0, delta: { content: 'par' }, finish_reason: null }] }]));
      const stream = await client.chat.completions.create({ model: 'm', messages: [user], stream: true });
      const got: string[] = [];
      const err = await apiError(async () => {
        for await (const chunk of stream) got.push(chunk.choices[0]?.delta.content ?? '');
      });
      assert.match(err.message, /upstream overloaded/);
      assert.deepEqual(got, ['par']);
    });

    it('error replies arrive as the matching APIError', async () => {
      const { client } = await start(() => ({ kind: 'error', status: 429, message: 'Rate limit reached', code: 'rate_limit_exceeded' }));
      const err = await apiError(() => client.chat.completions.create({ model: 'm', messages: [user] }));
      assert.ok(err instanceof OpenAI.RateLimitError);
      assert.equal(err.status, 429);
      assert.equal(err.code, 'rate_limit_exceeded');
      assert.match(err.message, /Rate limit reached/);
    });

    it('a handler that throws gives HTTP 500 with its message, not retried', async () => {
      const { server } = await start(() => {
        throw new Error('boom in script');
      });
      const retrying = new OpenAI({ baseURL: server.baseUrl, apiKey: 'test', maxRetries: 2 });
      const err = await apiError(() => retrying.chat.completions.create({ model: 'm', messages: [user] }));
      assert.equal(err.status, 500);
      assert.match(err.message, /boom in script/);
      assert.equal(server.requests.length, 1, 'x-should-retry: false stops SDK retries');
      await assert.rejects(server.close(), /handler threw for request #0.*boom in script/s, 'close() fails the test that had a throwing handler');
    });

    it('an assertion that fails inside a handler fails close(), even when the client swallowed the 500', async () => {
      const { client, server } = await start(() => {
        assert.equal(1, 2, 'the request was not what the test expected');
        return message('unreachable');
      });
      await client.chat.completions.create({ model: 'm', messages: [user] }).catch(() => undefined);
      await assert.rejects(server.close(), /the request was not what the test expected/);
    });

    it('records x-cortex-purpose / x-cortex-step headers and the body', async () => {
      const { client, server } = await start(() => message('ok'));
      await client.chat.completions.create(
        { model: 'm', messages: [user], tools: [readFileTool], tool_choice: 'required', parallel_tool_calls: false },
        { headers: { 'x-cortex-purpose': 'executor', 'x-cortex-step': 'step-2' } },
      );
      const [req] = server.requests;
      assert.equal(req.index, 0);
      assert.equal(req.method, 'POST');
      assert.equal(req.path, '/v1/chat/completions');
      assert.equal(req.purpose, 'executor');
      assert.equal(req.stepId, 'step-2');
      assert.equal(req.headers['x-cortex-step'], 'step-2');
      assert.equal(req.body.tool_choice, 'required');
      assert.equal(req.body.parallel_tool_calls, false);
      assert.equal(req.stream, false);
    });

    it('close() ends a hanging request, and a client abort of a hang leaves the server usable', async () => {
      const { client, server } = await start(
        sequence({ kind: 'hang' }, message('after abort'), { kind: 'hang', afterChunks: [{ choices: [{ index: 0, delta: { content: 'x' } }] }] }),
      );
      const controller = new AbortController();
      const aborted = client.chat.completions.create({ model: 'm', messages: [user] }, { signal: controller.signal });
      setTimeout(() => controller.abort(), 20);
      await assert.rejects(aborted);
      assert.equal((await client.chat.completions.create({ model: 'm', messages: [user] })).choices[0].message.content, 'after abort');

      const stream = await client.chat.completions.create({ model: 'm', messages: [user], stream: true });
      const started = Date.now();
      const consumed = (async () => {
        for await (const _chunk of stream) {
          // drain until the server goes away
        }
      })();
      setTimeout(() => void server.close(), 30);
      await assert.rejects(consumed);
      assert.ok(Date.now() - started < 2000);
    });
  });

  describe('protocol validation (400, handler not called)', () => {
    let handlerCalls = 0;
    beforeEach(() => {
      handlerCalls = 0;
    });
    const counting: Handler = () => {
      handlerCalls++;
      return message('ok');
    };

    const cases: Array<{ name: string; body: Record<string, unknown>; message: RegExp }> = [
      { name: 'missing model', body: { messages: [user] }, message: /model parameter/ },
      { name: 'empty messages', body: { model: 'm', messages: [] }, message: /empty array/ },
      { name: 'invalid role', body: { model: 'm', messages: [{ role: 'robot', content: 'x' }] }, message: /Invalid value: 'robot'/ },
      { name: 'a body that is not JSON', body: { __raw: '{"model":' }, message: /could not parse the JSON body/ },
      {
        name: 'a user message without content',
        body: { model: 'm', messages: [{ role: 'user' }] },
        message: /Missing required parameter: 'messages\[0\]\.content'/,
      },
      {
        name: 'an assistant message with neither content nor tool_calls',
        body: { model: 'm', messages: [user, { role: 'assistant', content: null }, user] },
        message: /expected a string, got null/,
      },
      {
        name: 'an assistant message with empty tool_calls',
        body: { model: 'm', messages: [user, { role: 'assistant', content: null, tool_calls: [] }] },
        message: /tool_calls': empty array/,
      },
      { name: 'an empty tools array', body: { model: 'm', messages: [user], tools: [] }, message: /'tools': empty array/ },
      {
        name: 'an image part in a tool message',
        body: {
          model: 'm',
          messages: [user, assistantCalls('c1'), { role: 'tool', tool_call_id: 'c1', content: [{ type: 'image_url', image_url: { url: PNG_URL } }] }],
        },
        message: /Image URLs are only allowed for messages with role 'user', but this message with role 'tool' contains an image URL/,
      },
      {
        name: 'an image part that is not an image data URL',
        body: { model: 'm', messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/svg+xml;base64,PHN2Zy8+' } }] }] },
        message: /Invalid image URL/,
      },
      {
        name: 'a content part of an unknown type',
        body: { model: 'm', messages: [{ role: 'system', content: [{ type: 'image_url', image_url: { url: PNG_URL } }] }] },
        message: /only allowed for messages with role 'user'/,
      },
      {
        name: 'a tool message with no preceding tool_calls',
        body: { model: 'm', messages: [user, toolAnswer('call_1')] },
        message: /must be a response to a preceeding message with 'tool_calls'/,
      },
      {
        name: 'a tool message without tool_call_id',
        body: { model: 'm', messages: [user, assistantCalls('c1'), { role: 'tool', content: 'ok' }] },
        message: /preceeding message with 'tool_calls'.*tool_call_id/,
      },
      {
        name: 'a tool message answering an unknown id',
        body: { model: 'm', messages: [user, assistantCalls('c1'), toolAnswer('c1'), toolAnswer('c9')] },
        message: /'tool_call_id' of 'c9' not found/,
      },
      {
        name: 'a tool message separated from its assistant message',
        body: { model: 'm', messages: [user, assistantCalls('c1'), { role: 'user', content: 'hm' }, toolAnswer('c1')] },
        message: /did not have response messages: c1/,
      },
      {
        name: 'a tool message after the tool_calls turn was closed by another assistant message',
        body: { model: 'm', messages: [user, assistantCalls('c1'), toolAnswer('c1'), { role: 'assistant', content: 'done' }, toolAnswer('c1')] },
        message: /must be a response to a preceeding message with 'tool_calls'/,
      },
      {
        name: 'assistant tool_calls left unanswered',
        body: { model: 'm', messages: [user, assistantCalls('c1', 'c2', 'c3'), toolAnswer('c2')] },
        message: /The following tool_call_ids did not have response messages: c1, c3$/,
      },
      {
        name: 'trailing unanswered tool_calls',
        body: { model: 'm', messages: [user, assistantCalls('c1')] },
        message: /must be followed by tool messages responding to each 'tool_call_id'.*c1/,
      },
      {
        name: 'duplicate tool_call ids',
        body: { model: 'm', messages: [user, assistantCalls('c1', 'c1'), toolAnswer('c1')] },
        message: /duplicate tool_call id 'c1'/,
      },
      {
        name: 'an id answered twice',
        body: { model: 'm', messages: [user, assistantCalls('c1', 'c2'), toolAnswer('c1'), toolAnswer('c1'), toolAnswer('c2')] },
        message: /'c1' was answered more than once/,
      },
      {
        name: 'tool call arguments that are not a string',
        body: {
          model: 'm',
          messages: [
            user,
            { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read_file', arguments: { path: 'a' } } }] },
            toolAnswer('c1'),
          ],
        },
        message: /function\.arguments': expected a string, but got an object/,
      },
      {
        name: 'a tool name with invalid characters',
        body: { model: 'm', messages: [user], tools: [{ type: 'function', function: { name: 'read file!', parameters: { type: 'object' } } }] },
        message: /tools\[0\]\.function\.name/,
      },
      {
        name: 'a tool name longer than 64',
        body: { model: 'm', messages: [user], tools: [{ type: 'function', function: { name: 'a'.repeat(65), parameters: { type: 'object' } } }] },
        message: /does not match pattern/,
      },
      {
        name: 'tool parameters that are not an object schema',
        body: { model: 'm', messages: [user], tools: [{ type: 'function', function: { name: 'x', parameters: { type: 'string' } } }] },
        message: /type: "object"/,
      },
      {
        name: 'a tool that is not type function',
        body: { model: 'm', messages: [user], tools: [{ type: 'retrieval', function: { name: 'x', parameters: { type: 'object' } } }] },
        message: /Supported values are: 'function'/,
      },
    ];

    for (const c of cases) {
      it(`rejects ${c.name}`, async () => {
        const { client, server } = await start(counting);
        // A raw body goes through fetch: the SDK can only send valid JSON.
        const err =
          typeof c.body.__raw === 'string'
            ? await apiError(() => client.post('/chat/completions', { body: c.body.__raw, headers: { 'content-type': 'application/json' } }))
            : await apiError(() => client.chat.completions.create(c.body as never));
        assert.equal(err.status, 400);
        assert.match(err.message, c.message);
        assert.equal(err.type, 'invalid_request_error');
        assert.equal(handlerCalls, 0);
        assert.equal(server.requests.length, 1);
        assert.equal(server.rejections.length, 1);
        assert.equal(server.rejections[0].status, 400);
        assert.match(server.rejections[0].message, c.message);
        assert.throws(() => server.assertNoRejections(), /protocol violations/);
      });
    }

    it('accepts a well-formed multi-turn tool conversation', async () => {
      const { client, server } = await start(counting);
      const res = await client.chat.completions.create({
        model: 'm',
        messages: [
          { role: 'system', content: 'sys' },
          user,
          assistantCalls('c1', 'c2'),
          toolAnswer('c2'),
          toolAnswer('c1'),
          { role: 'assistant', content: 'next' },
          { role: 'user', content: [{ type: 'text', text: 'more' }] },
          assistantCalls('c3'),
          toolAnswer('c3'),
        ],
        tools: [readFileTool],
      });
      assert.equal(res.choices[0].message.content, 'ok');
      assert.equal(handlerCalls, 1);
      server.assertNoRejections();
    });
  });

  describe('endpoint options', () => {
    it('401 with a wrong API key, 200 with the right one', async () => {
      const { server } = await start(() => message('ok'), { apiKey: 'sk-right' });
      const wrong = new OpenAI({ baseURL: server.baseUrl, apiKey: 'sk-wrong', maxRetries: 0 });
      const err = await apiError(() => wrong.chat.completions.create({ model: 'm', messages: [user] }));
      assert.ok(err instanceof OpenAI.AuthenticationError);
      assert.equal(err.status, 401);
      assert.match(err.message, /Incorrect API key/);
      assert.equal(server.refusals[0].reason, 'auth');
      assert.equal(server.rejections.length, 0, 'auth failures are not protocol violations');
      const right = new OpenAI({ baseURL: server.baseUrl, apiKey: 'sk-right', maxRetries: 0 });
      assert.equal((await right.chat.completions.create({ model: 'm', messages: [user] })).choices[0].message.content, 'ok');
    });

    it('404 model_not_found for an unknown model, and lists the known ones', async () => {
      const { client } = await start(() => message('ok'), { models: ['good-model'] });
      const err = await apiError(() => client.chat.completions.create({ model: 'nope', messages: [user] }));
      assert.ok(err instanceof OpenAI.NotFoundError);
      assert.equal(err.code, 'model_not_found');
      assert.match(err.message, /The model `nope` does not exist or you do not have access to it\./);
      const ids: string[] = [];
      for await (const model of client.models.list()) ids.push(model.id);
      assert.deepEqual(ids, ['good-model']);
      assert.equal((await client.chat.completions.create({ model: 'good-model', messages: [user] })).choices[0].message.content, 'ok');
    });

    it('rejectResponseFormat and rejectTools refuse only requests using them', async () => {
      const { client, server } = await start(() => message('ok'), { rejectResponseFormat: true, rejectTools: true });
      const rf = await apiError(() => client.chat.completions.create({ model: 'm', messages: [user], response_format: { type: 'json_object' } }));
      assert.equal(rf.status, 400);
      assert.match(rf.message, /response_format is not supported/);
      const tools = await apiError(() => client.chat.completions.create({ model: 'm', messages: [user], tools: [readFileTool] }));
      assert.equal(tools.status, 400);
      assert.match(tools.message, /tools is not supported by this model/);
      assert.equal((await client.chat.completions.create({ model: 'm', messages: [user] })).choices[0].message.content, 'ok');
      assert.deepEqual(
        server.refusals.map((r) => r.reason),
        ['unsupported', 'unsupported'],
      );
    });

    it('accepts image parts in user messages; rejectImages refuses them as a model without vision does', async () => {
      const withImage: Msg = {
        role: 'user',
        content: [
          { type: 'text', text: 'look' },
          { type: 'image_url', image_url: { url: PNG_URL } },
        ],
      };
      const { client } = await start(() => message('seen'));
      assert.equal((await client.chat.completions.create({ model: 'm', messages: [withImage] })).choices[0].message.content, 'seen');
      await server!.close();
      const strict = await start(() => message('ok'), { rejectImages: true });
      const err = await apiError(() => strict.client.chat.completions.create({ model: 'm', messages: [withImage] }));
      assert.equal(err.status, 400);
      assert.match(err.message, /image_url is only supported by certain models/);
      assert.equal((await strict.client.chat.completions.create({ model: 'm', messages: [user] })).choices[0].message.content, 'ok');
    });

    it('unknown paths get 404', async () => {
      const { server } = await start(() => message('ok'));
      const res = await fetch(`${server.baseUrl}/embeddings`, { method: 'POST', body: '{}' });
      assert.equal(res.status, 404);
      assert.ok(((await res.json()) as { error: { message: string } }).error.message.includes('/v1/embeddings'));
    });

    it('listens on 127.0.0.1 only', async () => {
      const { server } = await start();
      assert.match(server.baseUrl, /^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    });
  });

  describe('scriptedReplies', () => {
    it('sequence replies in order, then fails with "script exhausted"', async () => {
      const seq = sequence(message('one'), () => json({ n: 2 }));
      const { client } = await start(seq);
      assert.equal((await client.chat.completions.create({ model: 'm', messages: [user] })).choices[0].message.content, 'one');
      assert.equal((await client.chat.completions.create({ model: 'm', messages: [user] })).choices[0].message.content, '{"n":2}');
      assert.equal(seq.remaining(), 0);
      const err = await apiError(() => client.chat.completions.create({ model: 'm', messages: [user] }));
      assert.equal(err.status, 500);
      assert.match(err.message, /script exhausted/);
      await assert.rejects(server!.close(), /script exhausted/);
    });

    it('route dispatches on x-cortex-purpose and answers 400 naming an unrouted purpose', async () => {
      const { client } = await start(route({ planner: () => message('plan'), aggregator: message('sum') }));
      const ask = (purpose: string) => client.chat.completions.create({ model: 'm', messages: [user] }, { headers: { 'x-cortex-purpose': purpose } });
      assert.equal((await ask('planner')).choices[0].message.content, 'plan');
      assert.equal((await ask('aggregator')).choices[0].message.content, 'sum');
      const err = await apiError(() => ask('replanner'));
      assert.equal(err.status, 400);
      assert.match(err.message, /no handler for purpose 'replanner'/);
    });

    it('byStep picks the handler by the first user message (longest key) and turns by assistant count', async () => {
      const { client } = await start(
        byStep({
          'step 1': [toolCalls(call('read_file', { path: 'a' }, 'r1')), message('step 1 done')],
          'step 10': (req) => message(`ten, turn ${assistantTurns(req)}`),
        }),
      );
      const ask = (messages: Msg[]) => client.chat.completions.create({ model: 'm', messages });
      const u1: Msg = { role: 'user', content: 'Execute step 1: read' };
      assert.equal((await ask([u1])).choices[0].message.tool_calls?.[0].id, 'r1');
      assert.equal(
        (
          await ask([
            u1,
            { role: 'assistant', content: null, tool_calls: [{ id: 'r1', type: 'function', function: { name: 'read_file', arguments: '{}' } }] },
            toolAnswer('r1'),
          ])
        ).choices[0].message.content,
        'step 1 done',
      );
      assert.equal((await ask([{ role: 'user', content: 'Execute step 10: write' }])).choices[0].message.content, 'ten, turn 0');
      const err = await apiError(() => ask([{ role: 'user', content: 'Execute step 7' }]));
      assert.match(err.message, /byStep: no key/);
      await assert.rejects(server!.close(), /byStep: no key/);
    });

    it('accessors read the first user message, trailing tool messages and last assistant', async () => {
      let seen: { first: string; tools: string[]; last: unknown } | undefined;
      const { client } = await start((req) => {
        seen = {
          first: firstUserMessage(req),
          tools: toolMessages(req).map((m) => m.tool_call_id),
          last: lastAssistant(req)?.tool_calls?.map((c: { id: string }) => c.id),
        };
        return message('ok');
      });
      await client.chat.completions.create({
        model: 'm',
        messages: [{ role: 'system', content: 's' }, user, assistantCalls('a', 'b'), toolAnswer('a'), toolAnswer('b')],
      });
      assert.deepEqual(seen, { first: 'do the step', tools: ['a', 'b'], last: ['a', 'b'] });
    });
  });
});
