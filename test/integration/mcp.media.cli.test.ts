import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readTraceSync } from '../support/traceFile';
import { tempWorkspace } from '../support/agentHarness';
import { runCliInProcess as cli } from '../support/inProcessCli';
import type { ScriptedRequest } from '../support/scriptedServer';
import { assistantTurns, call, json, message, route, toolCalls, toolNames } from '../support/scriptedReplies';
import { useScriptedServer } from '../support/useScriptedServer';
import { EVERYTHING_ENTRY, FAULTY_SERVER } from '../fixtures/mcp/mcpServers';

// MCP images and resources through `cortex run` against the reference server
// (@modelcontextprotocol/server-everything) and the scripted endpoint, which refuses image parts
// anywhere but a user message (docs/design.md, “MCP tools”, results).

type Message = { role: string; content: unknown; tool_call_id?: string };
const messagesOf = (req: ScriptedRequest): Message[] => req.body?.messages ?? [];
const imageUrls = (req: ScriptedRequest): string[] =>
  messagesOf(req).flatMap((m) =>
    Array.isArray(m.content) ? m.content.filter((p: any) => p?.type === 'image_url').map((p: any) => String(p.image_url.url)) : [],
  );

describe('cortex CLI: MCP images and resources (server-everything)', function () {
  this.timeout(60_000);
  const server = useScriptedServer();
  let workspace: string;
  let files: string;
  beforeEach(() => {
    workspace = tempWorkspace();
    files = tempWorkspace('cortex-mcp-media-');
  });

  const write = (name: string, value: unknown) => {
    const path = join(files, name);
    writeFileSync(path, JSON.stringify(value));
    return path;
  };
  const mcpConfig = () =>
    write('mcp.json', {
      servers: {
        everything: { type: 'stdio', command: process.execPath, args: [EVERYTHING_ENTRY, 'stdio'] },
        faulty: { type: 'stdio', command: process.execPath, args: [FAULTY_SERVER] },
      },
    });
  const run = (model: string, settings: Record<string, unknown>, trace: string) =>
    cli([
      'run',
      '--workspace',
      workspace,
      '--base-url',
      server().baseUrl,
      '--model',
      model,
      '--config',
      write('settings.json', settings),
      '--mcp-config',
      mcpConfig(),
      '--trace',
      trace,
      '--approve',
      'all',
      'show the tiny image',
    ]);

  /** The scripted conversation: the step calls get-tiny-image, then answers; the executor's second request is kept. */
  function imageScript(seen: ScriptedRequest[]) {
    return route({
      planner: json({ title: 'image', steps: ['Get the tiny image from everything'], dependencies: {} }),
      executor: (req) => {
        if (assistantTurns(req) === 0) return toolCalls(call('everything_get-tiny-image', {}, 'call_img'));
        seen.push(req);
        return message('It is the MCP logo.');
      },
      aggregator: message('Shown.'),
    });
  }

  for (const [title, model, settings] of [
    ['a model known to take images (auto)', 'gpt-4o', {}],
    ['any model with cortex.llm.images "on"', 'm', { 'cortex.llm.images': 'on' }],
  ] as const) {
    it(`${title}: the image reaches the endpoint as an image part of a user message after the tool message; the trace keeps its hash, not its bytes`, async () => {
      const seen: ScriptedRequest[] = [];
      server().setHandler(imageScript(seen));
      const trace = join(files, 'trace.jsonl');
      const result = await run(model, settings, trace);
      assert.equal(result.code, 0, result.stderr);
      const messages = messagesOf(seen[0]);
      const toolAt = messages.findIndex((m) => m.role === 'tool');
      const tool = messages[toolAt];
      assert.equal(typeof tool.content, 'string', 'a tool message carries text only');
      assert.match(
        String(tool.content),
        /^Here's the image you requested:\n\[image image\/png, \d+ bytes: sent as image 1 of this call, in the message after the tool results\]/,
      );
      const after = messages[toolAt + 1];
      assert.equal(after.role, 'user');
      assert.match(JSON.stringify(after.content), /not instructions from the user/);
      const [url] = imageUrls(seen[0]);
      assert.match(url, /^data:image\/png;base64,iVBORw0KGgo/);
      const bytes = Buffer.from(url.slice(url.indexOf(',') + 1), 'base64');

      const audit = readTraceSync(trace).events.find((e) => e.type === 'step_audit' && e.kind === 'mcp_result');
      assert.deepEqual(audit?.type === 'step_audit' && audit.data.images, [
        { mimeType: 'image/png', bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex'), sent: true },
      ]);
      assert.ok(!readFileSync(trace, 'utf8').includes(url.slice(30, 200)), 'no image bytes in the trace');
    });
  }

  it('a model not known to take images: a plain sentence instead, and no image part reaches an endpoint that refuses them', async () => {
    const seen: ScriptedRequest[] = [];
    await server.restart(imageScript(seen), { rejectImages: true });
    const result = await run('qwen2.5-coder:7b', {}, join(files, 'trace.jsonl'));
    assert.equal(result.code, 0, result.stderr);
    const tool = messagesOf(seen[0]).find((m) => m.role === 'tool')!;
    assert.match(
      String(tool.content),
      /\[image image\/png, \d+ bytes: not shown, this model does not take images here \(the model "qwen2\.5-coder:7b" is not known to take images; set cortex\.llm\.images to "on" to send them\)\]/,
    );
    assert.deepEqual(server().chatRequests().flatMap(imageUrls), []);
    assert.equal(server().refusals.length, 0);
  });

  it('an endpoint that refuses the image (cortex.llm.images "on" for a model without vision) fails the request with a sentence naming the setting', async () => {
    await server.restart(imageScript([]), { rejectImages: true });
    const trace = join(files, 'trace.jsonl');
    const result = await run('m', { 'cortex.llm.images': 'on' }, trace);
    assert.notEqual(result.code, 0);
    const said =
      /The endpoint refused a request that carried 1 image\(s\) returned by tools; if the model does not take images, set cortex\.llm\.images to "off" \(it is "on"\)\./;
    assert.match(result.stderr, said);
    assert.ok(readTraceSync(trace).events.some((e) => e.type === 'log' && e.level === 'warn' && said.test(e.message)));
    assert.equal(server().refusals.filter((r) => r.reason === 'unsupported').length >= 1, true);
  });

  it('a server with resources gets a read-only read_resource tool listing them; a server without gets none', async () => {
    const seen: ScriptedRequest[] = [];
    server().setHandler(
      route({
        planner: json({ title: 'docs', steps: ['Read the features document of everything'], dependencies: {} }),
        executor: (req) => {
          seen.push(req);
          if (assistantTurns(req) === 0)
            return toolCalls(
              call('everything_read_resource', { uri: 'demo://resource/static/document/features.md' }, 'call_doc'),
              call('everything_read_resource', { uri: 'demo://resource/dynamic/blob/1' }, 'call_blob'),
            );
          return message('Read.');
        },
        aggregator: message('Done.'),
      }),
    );
    const trace = join(files, 'trace.jsonl');
    const result = await run('m', {}, trace);
    assert.equal(result.code, 0, result.stderr);

    const offered = toolNames(seen[0]);
    assert.ok(offered.includes('everything_read_resource'), offered.join(', '));
    assert.ok(!offered.some((name) => name.startsWith('faulty_read')), 'the faulty server lists no resources');
    const spec = seen[0].body.tools.find((t: any) => t.function.name === 'everything_read_resource').function;
    assert.match(spec.description, /Reads one resource of MCP server "everything" by its URI/);
    assert.match(spec.description, /- demo:\/\/resource\/static\/document\/features\.md \(features\.md, text\/markdown\)/);
    assert.match(spec.description, /- demo:\/\/resource\/dynamic\/text\/\{resourceId\} \(template/);
    assert.deepEqual(spec.parameters.required, ['uri']);

    const answers = messagesOf(seen[1]).filter((m) => m.role === 'tool');
    const doc = String(answers.find((m) => m.tool_call_id === 'call_doc')!.content);
    const features = readFileSync(join(EVERYTHING_ENTRY, '..', 'docs', 'features.md'), 'utf8');
    assert.ok(doc.startsWith(`[resource demo://resource/static/document/features.md (text/markdown, ${features.length} characters)]\n`), doc.slice(0, 200));
    assert.ok(doc.includes(features.slice(0, 200)), 'the text is inline');
    const blob = String(answers.find((m) => m.tool_call_id === 'call_blob')!.content);
    assert.match(
      blob,
      /^\[resource demo:\/\/resource\/dynamic\/blob\/1 \([a-z/-]+, \d+ bytes of binary data\), not shown: binary content is not sent to the model\]$/,
    );

    const requested = readTraceSync(trace).events.filter((e) => e.type === 'tool_call_requested');
    assert.deepEqual(requested[0]?.type === 'tool_call_requested' && requested[0].call.audit?.mcp, {
      server: 'everything',
      tool: 'read_resource',
      annotations: { title: 'Read resource', readOnlyHint: true, idempotentHint: true },
    });
  });

  it('an unknown cortex.llm.images value is a configuration error naming the setting (exit 2)', async () => {
    const result = await run('m', { 'cortex.llm.images': 'sometimes' }, join(files, 'trace.jsonl'));
    assert.equal(result.code, 2);
    assert.match(result.stderr, /cortex\.llm\.images/);
  });
});
