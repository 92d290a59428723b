import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parseConfig } from '../../../src/core/config/configSchema';
import { decodeArgumentText, summarizeDecoding } from '../../../src/core/llm/argumentDecoding';
import type { AccumulatedToolCall, LlmClient } from '../../../src/core/llm/llmTypes';
import { createBuiltinRegistry } from '../../../src/core/tools/workspace/builtinTools';
import { executePreparedCall, prepareToolCalls, TOOL_ERROR_GUIDANCE } from '../../../src/core/tools/toolPipeline';
import { expectDisposition } from '../../support/preparedCalls';
import { createTempWorkspace, toolContext } from './workspaceFixture';

// Stages 1, 3 and 5 of the pipeline without repair calls (repairs are off, so no LLM request may
// happen; repair behaviour is tested through the scripted server in test/integration).

const noLlm: LlmClient = {
  chat: (request) => Promise.reject(new Error(`no LLM request expected, got purpose ${request.purpose}`)),
};

let nextIndex = 0;
/** A call as the accumulator hands it over: its arguments decoded once, as the response ended. */
function call(name: string, rawArguments: string, response: { finishReason?: string; streamBroken?: boolean; tooLarge?: boolean } = {}): AccumulatedToolCall {
  const index = nextIndex++;
  const finishReason = response.finishReason ?? 'tool_calls';
  const cutOff = finishReason === 'length' || response.streamBroken === true;
  const decoding = decodeArgumentText(rawArguments, { cutOff, tooLarge: response.tooLarge });
  const { note: _note, ...summary } = summarizeDecoding(decoding, cutOff);
  return { id: `call_${index}`, providerId: true, index, name, rawArguments, decoded: decoding.decoded, ...summary, finishReason };
}

const noRepair = parseConfig({ 'cortex.repair.toolNameAttempts': 0, 'cortex.repair.toolCallAttempts': 0 });

async function prepare(calls: AccumulatedToolCall[], config = noRepair, trusted = true) {
  return prepareToolCalls(calls, {
    registry: createBuiltinRegistry(config, { trusted }),
    config,
    llm: noLlm,
    signal: new AbortController().signal,
    stepId: 's1',
  });
}

describe('toolPipeline.prepareToolCalls', () => {
  it('marks valid calls runnable with validated arguments (exact, alias, normalized)', async () => {
    const { calls, audit } = await prepare(
      [call('read_file', '{"path":"a.ts"}'), call('cat', '{"path":"b"}'), call('ReadFile', '{"path":"c"}')],
      parseConfig({ ...noRepair, 'cortex.tools.aliases': { cat: 'read_file' } }),
    );
    assert.deepEqual(
      calls.map((c) => [c.requestedName, c.name, c.nameResolution, c.disposition, c.argumentsJson]),
      [
        ['read_file', 'read_file', 'exact', 'run', '{"path":"a.ts"}'],
        ['cat', 'read_file', 'alias', 'run', '{"path":"b"}'],
        ['ReadFile', 'read_file', 'normalized', 'run', '{"path":"c"}'],
      ],
    );
    const first = expectDisposition(calls[0], 'run');
    assert.deepEqual(first.args, { path: 'a.ts' });
    assert.equal(first.tool.name, 'read_file');
    assert.equal(first.validated, true);
    assert.deepEqual(
      audit.resolutions.map((r) => r.nameResolution),
      ['alias', 'normalized'],
    );
    assert.equal(audit.nameRepair, undefined);
  });

  it('{} for read_file becomes an invalid payload naming the missing field', async () => {
    const { calls } = await prepare([call('read_file', '{}')]);
    const invalid = expectDisposition(calls[0], 'invalid');
    assert.deepEqual(JSON.parse(invalid.invalidPayload), { tool: 'read_file', error: 'Invalid arguments: missing required field(s): path', receivedArgs: {} });
    assert.equal(invalid.argumentsJson, '{}');
  });

  it('wrong types and unknown keys are invalid, naming the fields', async () => {
    const { calls } = await prepare([call('read_file', '{"path":"a","start_line":"3"}'), call('write_file', '{"path":"a","content":"x","mode":"w"}')]);
    assert.match(JSON.parse(expectDisposition(calls[0], 'invalid').invalidPayload).error, /field 'start_line' must be number, got string/);
    const second = JSON.parse(expectDisposition(calls[1], 'invalid').invalidPayload);
    assert.match(second.error, /unknown field\(s\): mode/);
    assert.deepEqual(second.receivedArgs, { path: 'a', content: 'x', mode: 'w' });
  });

  it('unknown and nameless calls are invalid; the payload always has a tool field', async () => {
    const { calls } = await prepare([call('delete_all', '{"x":1}'), call('', '{}')]);
    assert.deepEqual(
      calls.map((c) => [c.nameResolution, c.disposition]),
      [
        ['unknown', 'invalid'],
        ['missing', 'invalid'],
      ],
    );
    const unknown = JSON.parse(expectDisposition(calls[0], 'invalid').invalidPayload);
    assert.equal(unknown.tool, 'delete_all');
    assert.match(
      unknown.error,
      /Unknown tool 'delete_all'\. Available tools: read_file, list_directory, find_files, search_text, write_file, edit_file, create_directory, run_command/,
    );
    const nameless = JSON.parse(expectDisposition(calls[1], 'invalid').invalidPayload);
    assert.equal(nameless.tool, '');
    assert.match(nameless.error, /has no tool name/);
  });

  it('a write tool in an untrusted (read-only) workspace is not available', async () => {
    const { calls } = await prepare([call('write_file', '{"path":"a","content":"x"}')], noRepair, false);
    assert.equal(calls[0].disposition, 'invalid');
    assert.match(
      expectDisposition(calls[0], 'invalid').reason,
      /Tool 'write_file' is not available here\. Available tools: read_file, list_directory, find_files, search_text$/,
    );
    assert.equal(calls[0].audit.hiddenTool, true);
  });

  it('truncated arguments stay unparseable with the smaller-step remedy, and are audited', async () => {
    const { calls, audit } = await prepare([call('write_file', '{"path":"a","content":"lots of', { finishReason: 'length' })]);
    const cut = expectDisposition(calls[0], 'unparseable');
    assert.equal(cut.parseError, 'truncated');
    assert.match(cut.reason, /^truncated: .*smaller step/);
    assert.equal(calls[0].argumentsJson, '{"path":"a","content":"lots of');
    assert.deepEqual(audit.truncated, [{ tool_call_id: calls[0].call.id, name: 'write_file' }]);
  });

  it('invalid JSON stays unparseable when repair is off; what the stream said is respected', async () => {
    const { calls } = await prepare([
      call('read_file', '{path: a}'),
      call('read_file', '{"path":"a"}', { tooLarge: true }),
      call('read_file', '{"pa', { streamBroken: true }),
    ]);
    assert.deepEqual(
      calls.map((c) => [c.disposition, expectDisposition(c, 'unparseable').parseError]),
      [
        ['unparseable', 'invalid_json'],
        ['unparseable', 'too_large'],
        ['unparseable', 'truncated'],
      ],
    );
  });

  it('JSON that is not an object gets the invalid payload; an unterminated value is truncated', async () => {
    const { calls } = await prepare([call('read_file', '[1]'), call('read_file', '{"path":"a')]);
    assert.deepEqual(JSON.parse(expectDisposition(calls[0], 'invalid').invalidPayload), {
      tool: 'read_file',
      error: 'Invalid arguments: the arguments must be a JSON object, got array',
      receivedArgs: [1],
    });
    assert.equal(expectDisposition(calls[1], 'unparseable').parseError, 'truncated');
  });

  it('a parse error wins over an unknown name (the call stays pending)', async () => {
    const { calls } = await prepare([call('nope', '{bad json}')]);
    assert.deepEqual([calls[0].nameResolution, expectDisposition(calls[0], 'unparseable').parseError], ['unknown', 'invalid_json']);
  });

  it('unwraps double-encoded arguments and records it', async () => {
    const { calls } = await prepare([call('read_file', JSON.stringify(JSON.stringify({ path: 'a' })))]);
    assert.deepEqual(expectDisposition(calls[0], 'run').args, { path: 'a' });
    assert.equal(calls[0].audit.doubleEncoded, true);
  });

  it('keeps the original call untouched and one prepared call per input, in order', async () => {
    const input = [call('x', '{}'), call('read_file', '{"path":"a"}'), call('read_file', '{')];
    const snapshot = JSON.stringify(input);
    const { calls } = await prepare(input);
    assert.deepEqual(
      calls.map((c) => c.call),
      input,
    );
    assert.equal(JSON.stringify(input), snapshot);
  });

  it('makes no LLM request when repairs are on but nothing needs repair', async () => {
    const { calls } = await prepare([call('read_file', '{"path":"a"}')], parseConfig({}));
    assert.equal(calls[0].disposition, 'run');
  });

  it('exports the system-prompt guidance', () => {
    assert.match(TOOL_ERROR_GUIDANCE, /receivedArgs/);
  });
});

describe('toolPipeline.executePreparedCall', () => {
  let ws: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    const workspace = await createTempWorkspace();
    ws = workspace.ws;
    cleanup = () => workspace.cleanup();
  });
  afterEach(() => cleanup());

  it('runs a runnable call in the workspace', async () => {
    const { calls } = await prepare([call('writeFile', '{"path":"notes/a.txt","content":"hi"}')]);
    const result = await executePreparedCall(calls[0], toolContext(ws), 32_768);
    assert.deepEqual([result.ok, result.output], [true, "Created 'notes/a.txt' (2 bytes)"]);
    assert.equal(await readFile(path.join(ws, 'notes', 'a.txt'), 'utf8'), 'hi');
  });

  it('returns the invalid payload without running anything', async () => {
    const { calls } = await prepare([call('write_file', '{"path":"x.txt"}')]);
    const result = await executePreparedCall(calls[0], toolContext(ws), 32_768);
    assert.equal(result.ok, false);
    assert.equal(result.output, expectDisposition(calls[0], 'invalid').invalidPayload);
    await assert.rejects(readFile(path.join(ws, 'x.txt')));
  });

  it('refuses to run an unparseable call', async () => {
    const { calls } = await prepare([call('read_file', '{"path":')]);
    await assert.rejects(executePreparedCall(calls[0], toolContext(ws), 32_768), /unparseable \(truncated\) and must not run/);
  });

  it('with validateSchema off, the schema is still enforced at execution with the same payload', async () => {
    const config = parseConfig({ ...noRepair, 'cortex.repair.validateSchema': false });
    const { calls } = await prepare([call('read_file', '{"file":"a"}')], config);
    assert.equal(expectDisposition(calls[0], 'run').validated, false);
    const result = await executePreparedCall(calls[0], toolContext(ws), 32_768);
    assert.equal(result.ok, false);
    const payload = JSON.parse(result.output);
    assert.equal(payload.tool, 'read_file');
    assert.match(payload.error, /missing required field\(s\): path; unknown field\(s\): file/);
  });
});
