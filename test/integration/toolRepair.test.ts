import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { parseConfig, type FlatConfig } from '../../src/core/config/configSchema';
import { createOpenAiClient } from '../../src/core/llm/openAiClient';
import type { ChatMessage, LlmClient, ToolSpec } from '../../src/core/llm/llmTypes';
import { createBuiltinRegistry } from '../../src/core/tools/workspace/builtinTools';
import type { ToolRegistry } from '../../src/core/tools/toolRegistry';
import { executePreparedCall, prepareToolCalls, TOOL_ERROR_GUIDANCE } from '../../src/core/tools/toolPipeline';
import { call, error, json, message, route, toolCalls, toolMessages } from '../support/scriptedReplies';
import type { ScriptedRequest } from '../support/scriptedServer';
import { useScriptedServer } from '../support/useScriptedServer';
import { expectDisposition } from '../support/preparedCalls';
import { createJailFixture, type JailFixture, SECRET, toolContext } from '../unit/tools/workspaceFixture';

// The tool pipeline with the real LLM client against the scripted endpoint: an executor turn's tool
// calls go through prepareToolCalls (which makes the real repair requests) and executePreparedCall,
// and the results go back to the endpoint as tool messages, which it checks like a real one would.

describe('tool pipeline through the scripted endpoint', function () {
  this.timeout(20_000);
  const server = useScriptedServer();
  let fx: JailFixture;
  let llm: LlmClient;

  beforeEach(async () => {
    fx = await createJailFixture();
    llm = createOpenAiClient({
      baseUrl: server().baseUrl,
      apiKey: 'k',
      model: 'scripted-model',
      requestTimeoutMs: 5000,
      streamIdleTimeoutMs: 5000,
      maxRetries: 0,
    });
  });
  afterEach(async () => {
    await fx.cleanup();
  });

  /** One executor turn, then the pipeline, then the tool results sent back in a follow-up turn. */
  async function turn(settings: Partial<FlatConfig> = {}, registry?: ToolRegistry) {
    const config = parseConfig(settings);
    const tools = registry ?? createBuiltinRegistry(config);
    const messages: ChatMessage[] = [
      { role: 'system', content: `You are a coding agent.\n\n${TOOL_ERROR_GUIDANCE}` },
      { role: 'user', content: 'do the thing' },
    ];
    const specs: readonly ToolSpec[] = tools.specs();
    const response = await llm.chat({ purpose: 'executor', stepId: 's1', messages, tools: specs, stream: true });
    const prepared = await prepareToolCalls(response.toolCalls, { registry: tools, config, llm, signal: new AbortController().signal, stepId: 's1' });
    const results = [];
    for (const p of prepared.calls) {
      if (p.disposition === 'unparseable') continue;
      results.push({ prepared: p, result: await executePreparedCall(p, toolContext(fx.ws), config['cortex.limits.maxToolOutputBytes']) });
    }
    const replayed = prepared.calls.filter((c) => c.disposition !== 'unparseable');
    if (replayed.length) {
      messages.push({
        role: 'assistant',
        content: null,
        tool_calls: replayed.map((c) => ({ id: c.call.id, type: 'function', function: { name: c.name || 'invalid', arguments: c.argumentsJson } })),
      });
      for (const { prepared: p, result } of results) messages.push({ role: 'tool', tool_call_id: p.call.id, content: result.output });
      await llm.chat({ purpose: 'executor', stepId: 's1', messages, tools: specs, stream: true });
    }
    server().assertNoRejections();
    return { response, prepared, results };
  }

  const requestsFor = (purpose: string): ScriptedRequest[] =>
    server()
      .chatRequests()
      .filter((r) => r.purpose === purpose);
  /** Tool messages the endpoint received in the follow-up executor turn. */
  const followUpToolMessages = () => toolMessages(requestsFor('executor').at(-1)!);

  it('repairs an unknown tool name with one tool-name-repair call, then runs the tool', async () => {
    let executorTurns = 0;
    server().setHandler(
      route({
        executor: () => (executorTurns++ === 0 ? toolCalls(call('open_file', { path: 'inside.txt' }, 'c1')) : message('done')),
        'tool-name-repair': json({ repairs: [{ tool_call_id: 'c1', name: 'read_file' }] }),
      }),
    );
    const { prepared, results } = await turn();
    const [p] = prepared.calls;
    assert.deepEqual([p.requestedName, p.name, p.nameResolution, p.disposition], ['open_file', 'read_file', 'repaired', 'run']);
    assert.deepEqual(results[0].result.output, 'inside content\n');
    assert.deepEqual(
      followUpToolMessages().map((m) => [m.tool_call_id, m.content]),
      [['c1', 'inside content\n']],
    );

    const [repair] = requestsFor('tool-name-repair');
    assert.equal(repair.stream, false);
    assert.equal(repair.body.temperature, 0);
    assert.equal(repair.body.tools, undefined);
    assert.deepEqual(repair.body.response_format, { type: 'json_object' });
    assert.equal(repair.stepId, 's1');
    const body = JSON.parse(repair.body.messages[1].content);
    assert.ok(body.visible_tools.includes('read_file'));
    assert.deepEqual(body.candidates, [{ tool_call_id: 'c1', name: 'open_file', reason: 'tool_not_found', arguments: '{"path":"inside.txt"}' }]);
    assert.deepEqual(prepared.audit.nameRepair?.repaired, [{ tool_call_id: 'c1', from: 'open_file', to: 'read_file' }]);
    assert.deepEqual(prepared.audit.nameRepair?.replies, [JSON.stringify({ repairs: [{ tool_call_id: 'c1', name: 'read_file' }] })]);
    // The model's original call is kept for audit.
    assert.equal(p.call.name, 'open_file');
    assert.deepEqual(requestsFor('tool-call-repair'), []);
  });

  it('counts only exact visible names; partial success leaves the rest invalid', async () => {
    let executorTurns = 0;
    server().setHandler(
      route({
        executor: () =>
          executorTurns++ === 0
            ? toolCalls(call('ls_files', {}, 'a'), call('writeToDisk', { path: 'x', content: 'y' }, 'b'), call('zap', {}, 'c'))
            : message('ok'),
        'tool-name-repair': json({
          repairs: [
            { tool_call_id: 'a', name: 'list_directory' },
            { tool_call_id: 'b', name: 'write_to_disk' },
            { tool_call_id: 'zz', name: 'read_file' },
          ],
        }),
      }),
    );
    const { prepared } = await turn({ 'cortex.repair.maxVisibleToolNames': 3, 'cortex.repair.maxCandidates': 2 });
    assert.deepEqual(
      prepared.calls.map((c) => [c.name, c.nameResolution, c.disposition]),
      [
        ['list_directory', 'repaired', 'run'],
        ['writeToDisk', 'unknown', 'invalid'],
        ['zap', 'unknown', 'invalid'],
      ],
    );
    const body = JSON.parse(requestsFor('tool-name-repair')[0].body.messages[1].content);
    assert.equal(body.visible_tools.length, 3);
    assert.equal(body.visible_tools_truncated, '5 more tool names not shown');
    assert.deepEqual(
      body.candidates.map((c: { tool_call_id: string }) => c.tool_call_id),
      ['a', 'b'],
    );
    const audit = prepared.audit.nameRepair!;
    assert.equal(audit.visibleToolNamesTruncated, true);
    assert.equal(audit.candidatesNotSent, 1);
    assert.deepEqual(
      audit.failed.map((f) => f.tool_call_id),
      ['b', 'c'],
    );
    assert.match(audit.failed[0].reason, /"write_to_disk" is not a visible tool/);
    assert.match(audit.failed[1].reason, /over the limit of 2 candidates/);
    const payload = JSON.parse(followUpToolMessages().find((m) => m.tool_call_id === 'b')!.content);
    assert.equal(payload.tool, 'writeToDisk');
    assert.match(payload.error, /Unknown tool 'writeToDisk'/);
  });

  it('repairs a stray key with one tool-call-repair call; the repaired arguments are validated first', async () => {
    let executorTurns = 0;
    server().setHandler(
      route({
        executor: () =>
          executorTurns++ === 0
            ? toolCalls(call('read_file', { path: 'inside.txt', encoding: 'utf8' }, 'r1'), call('write_file', { file: 'x.txt', content: 'y' }, 'r2'))
            : message('ok'),
        // r2's "repair" is still wrong, so it must not be used.
        'tool-call-repair': json({
          repairs: [
            { tool_call_id: 'r1', arguments: { path: 'inside.txt' } },
            { tool_call_id: 'r2', arguments: { file: 'x.txt', content: 'y' } },
          ],
        }),
      }),
    );
    const { prepared } = await turn();
    const [r1, r2] = prepared.calls;
    const run1 = expectDisposition(r1, 'run');
    assert.deepEqual([run1.args, run1.argumentsJson], [{ path: 'inside.txt' }, '{"path":"inside.txt"}']);
    assert.deepEqual(r1.audit.argumentRepair, {
      repaired: true,
      before: { validationError: 'Invalid arguments: unknown field(s): encoding (allowed: path, start_line, end_line)' },
    });
    assert.equal(r2.disposition, 'invalid');
    assert.match(String((r2.audit.argumentRepair as { reason: string }).reason), /still invalid/);
    assert.deepEqual(await readdir(fx.ws).then((names) => names.includes('x.txt')), false);

    const [repair] = requestsFor('tool-call-repair');
    assert.equal(repair.stream, false);
    assert.equal(repair.body.temperature, 0);
    assert.equal(repair.body.tools, undefined);
    const body = JSON.parse(repair.body.messages[1].content);
    assert.deepEqual(
      body.candidates.map((c: { tool_call_id: string; problem: string }) => [c.tool_call_id, c.problem]),
      [
        ['r1', 'schema_invalid'],
        ['r2', 'schema_invalid'],
      ],
    );
    assert.equal(body.candidates[0].schema.properties.path.type, 'string');
    assert.equal(body.candidates[0].schema.additionalProperties, false);
    const messages = followUpToolMessages();
    assert.equal(messages[0].content, 'inside content\n');
    assert.match(JSON.parse(messages[1].content).error, /missing required field\(s\): path; unknown field\(s\): file/);
  });

  it('repairs invalid JSON, but never sends a truncated call to repair', async () => {
    let executorTurns = 0;
    server().setHandler(
      route({
        executor: () =>
          executorTurns++ === 0 ? toolCalls(call('read_file', '{"path": inside.txt}', 'j1'), call('list_directory', '{"path": "sub"', 'j2')) : message('ok'),
        'tool-call-repair': json({ repairs: [{ tool_call_id: 'j1', arguments: '{"path":"inside.txt"}' }] }),
      }),
    );
    const { prepared } = await turn();
    const [j1, j2] = prepared.calls;
    assert.deepEqual(expectDisposition(j1, 'run').args, { path: 'inside.txt' });
    const cut = expectDisposition(j2, 'unparseable');
    assert.equal(cut.parseError, 'truncated');
    assert.match(cut.reason, /smaller step/);
    assert.deepEqual(prepared.audit.truncated, [{ tool_call_id: 'j2', name: 'list_directory' }]);
    const body = JSON.parse(requestsFor('tool-call-repair')[0].body.messages[1].content);
    assert.deepEqual(
      body.candidates.map((c: { tool_call_id: string; problem: string }) => [c.tool_call_id, c.problem]),
      [['j1', 'invalid_json']],
    );
    // The unparseable call is not replayed: the follow-up has exactly one tool message.
    assert.deepEqual(
      followUpToolMessages().map((m) => m.tool_call_id),
      ['j1'],
    );
  });

  it('repairs a name and then its arguments in the same response', async () => {
    let executorTurns = 0;
    server().setHandler(
      route({
        executor: () => (executorTurns++ === 0 ? toolCalls(call('cat_file', { filename: 'inside.txt' }, 'n1')) : message('ok')),
        'tool-name-repair': json({ repairs: [{ tool_call_id: 'n1', name: 'read_file' }] }),
        'tool-call-repair': json({ repairs: [{ tool_call_id: 'n1', arguments: { path: 'inside.txt' } }] }),
      }),
    );
    const { prepared, results } = await turn();
    assert.deepEqual([prepared.calls[0].name, prepared.calls[0].nameResolution, prepared.calls[0].disposition], ['read_file', 'repaired', 'run']);
    assert.equal(results[0].result.output, 'inside content\n');
    assert.deepEqual(
      server()
        .chatRequests()
        .map((r) => r.purpose),
      ['executor', 'tool-name-repair', 'tool-call-repair', 'executor'],
    );
  });

  it('a failing repair request is audited and the calls fall back to the invalid payload', async () => {
    let executorTurns = 0;
    server().setHandler(
      route({
        executor: () => (executorTurns++ === 0 ? toolCalls(call('read_file', {}, 'e1')) : message('ok')),
        'tool-call-repair': error(500, 'repair model is down', { headers: { 'x-should-retry': 'false' } }),
      }),
    );
    const { prepared } = await turn();
    assert.equal(prepared.calls[0].disposition, 'invalid');
    assert.match(prepared.audit.argumentRepair!.error!, /repair model is down|500/);
    assert.deepEqual(JSON.parse(followUpToolMessages()[0].content), {
      tool: 'read_file',
      error: 'Invalid arguments: missing required field(s): path',
      receivedArgs: {},
    });
  });

  it('makes no repair request when repairs are switched off', async () => {
    let executorTurns = 0;
    server().setHandler(
      route({ executor: () => (executorTurns++ === 0 ? toolCalls(call('nope', {}, 'x1'), call('read_file', { bad: 1 }, 'x2')) : message('ok')) }),
    );
    const { prepared } = await turn({ 'cortex.repair.toolNameAttempts': 0, 'cortex.repair.toolCallAttempts': 0 });
    assert.deepEqual(
      prepared.calls.map((c) => c.disposition),
      ['invalid', 'invalid'],
    );
    assert.deepEqual(
      server()
        .chatRequests()
        .map((r) => r.purpose),
      ['executor', 'executor'],
    );
  });

  it('every jail escape fails with "outside the workspace" and no outside content reaches the model', async () => {
    const escapes = [
      call('read_file', { path: '../outside/secret.txt' }),
      call('read_file', { path: path.join(fx.outside, 'secret.txt') }),
      call('read_file', { path: '../ws-evil/secret.txt' }),
      call('read_file', { path: path.join(fx.evil, 'secret.txt') }),
      call('read_file', { path: 'link-file-out' }),
      call('read_file', { path: 'link-out/secret.txt' }),
      call('write_file', { path: 'link-out/planted.txt', content: 'x' }),
      call('write_file', { path: 'dangling', content: 'x' }),
      call('write_file', { path: 'dangling-dir/planted.txt', content: 'x' }),
      call('edit_file', { path: 'link-file-out', old_text: 'TOP', new_text: 'PWNED' }),
      call('list_directory', { path: 'link-out' }),
      call('create_directory', { path: '../outside/newdir' }),
      call('search_text', { pattern: 'SECRET', path: 'link-out' }),
      call('find_files', { pattern: '*', path: '../ws-evil' }),
      call('run_command', { command: 'cat secret.txt', cwd: 'link-out' }),
    ];
    let executorTurns = 0;
    server().setHandler(route({ executor: () => (executorTurns++ === 0 ? toolCalls(...escapes) : message('ok')) }));
    const { prepared } = await turn();
    assert.equal(prepared.calls.filter((c) => c.disposition === 'run').length, escapes.length);
    const messages = followUpToolMessages();
    assert.equal(messages.length, escapes.length);
    for (const m of messages) {
      assert.match(m.content, /is outside the workspace/, m.content);
      assert.ok(!m.content.includes(SECRET));
    }
    assert.ok(!JSON.stringify(server().requests.map((r) => r.body)).includes(SECRET), 'outside content was sent to the endpoint');
    assert.deepEqual((await readdir(fx.outside)).sort(), ['secret.txt']);
    assert.equal(await readFile(path.join(fx.outside, 'secret.txt'), 'utf8'), SECRET);
  });
});
