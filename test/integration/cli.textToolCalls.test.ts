import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readTraceSync } from '../support/traceFile';
import { tempWorkspace } from '../support/agentHarness';
import { json, lastAssistant, message, route, toolMessages } from '../support/scriptedReplies';
import type { ScriptedRequest } from '../support/scriptedServer';
import { runCliInProcess } from '../support/inProcessCli';
import { useScriptedServer } from '../support/useScriptedServer';

// Tool calls a local model writes into its text (cortex.llm.textToolCalls) through `cortex run`
// against the scripted endpoint, streamed in small fragments: read and run through the normal
// pipeline when complete and naming offered tools, marked source "text"; otherwise the text is the answer.

const cli = (argv: string[]) => runCliInProcess(argv);

describe('cortex CLI: tool calls written as text', function () {
  this.timeout(30_000);
  const server = useScriptedServer();
  let workspace: string;
  let files: string;
  beforeEach(() => {
    workspace = tempWorkspace();
    files = tempWorkspace('cortex-text-calls-');
    writeFileSync(join(workspace, 'a.txt'), 'CONTENT-OF-A');
  });

  /** The executor writes `text` on its first turn; a second turn (after a tool result) answers "It says A.". */
  async function runWith(text: string, settings: Record<string, unknown> = {}) {
    let second: ScriptedRequest | undefined;
    server().setHandler(
      route({
        planner: json({ title: 't', steps: ['Read a.txt'], dependencies: {} }),
        executor: (req) => (toolMessages(req).length ? ((second = req), message('It says A.')) : message(text, { fragmentSize: 3 })),
        aggregator: (req) => message(JSON.stringify(req.body.messages).includes('It says A.') ? 'Read: A.' : 'Not read.'),
      }),
    );
    const config = join(files, `settings-${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(config, JSON.stringify(settings));
    const trace = join(files, `trace-${Math.random().toString(36).slice(2)}.jsonl`);
    const result = await cli([
      'run',
      '--workspace',
      workspace,
      '--base-url',
      server().baseUrl,
      '--model',
      'm',
      '--config',
      config,
      '--trace',
      trace,
      'read a.txt',
    ]);
    const events = readTraceSync(trace).events;
    return { result, events, second: () => second };
  }

  it('auto: a complete Hermes block naming an offered tool runs like a native call, marked source "text"; the text around it stays the assistant content', async () => {
    const { result, events, second } = await runWith('Let me read it.\n<tool_call>\n{"name": "read_file", "arguments": {"path": "a.txt"}}\n</tool_call>');
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout.trim(), 'Read: A.');
    const requested = events.filter((e) => e.type === 'tool_call_requested');
    assert.equal(requested.length, 1);
    assert.deepEqual(requested[0].type === 'tool_call_requested' && [requested[0].call.name, requested[0].call.source, requested[0].call.arguments], [
      'read_file',
      'text',
      '{"path":"a.txt"}',
    ]);
    const completed = events.find((e) => e.type === 'tool_call_completed');
    assert.equal(completed?.type === 'tool_call_completed' && completed.status, 'success');
    const req = second()!;
    assert.match(String(toolMessages(req)[0].content), /CONTENT-OF-A/);
    const assistant = lastAssistant(req);
    assert.equal(assistant.content, 'Let me read it.');
    assert.deepEqual(
      assistant.tool_calls.map((c: any) => [c.function.name, c.function.arguments]),
      [['read_file', '{"path":"a.txt"}']],
    );
    const audit = events.find((e) => e.type === 'step_audit' && e.kind === 'text_tool_calls');
    assert.deepEqual(audit?.type === 'step_audit' && audit.data, { turn: 1, format: 'hermes', read: true, calls: 1 });
  });

  it('auto leaves the text as the answer for a tool that was not offered and for a half-written block; off never reads', async () => {
    const cases: Array<[string, Record<string, unknown>, RegExp]> = [
      ['<tool_call>\n{"name": "delete_everything", "arguments": {}}\n</tool_call>', {}, /names tools that were not offered: delete_everything/],
      ['<tool_call>\n{"name": "read_file", "arguments": {"path": "a.txt"}', {}, /<tool_call> is not closed/],
      ['<tool_call>\n{"name": "read_file", "arguments": {"path": "a.txt"}}\n</tool_call>', { 'cortex.llm.textToolCalls': 'off' }, /^$/],
    ];
    for (const [text, settings, why] of cases) {
      const { result, events } = await runWith(text, settings);
      assert.equal(result.code, 0, result.stderr);
      assert.equal(result.stdout.trim(), 'Not read.', text);
      assert.equal(events.filter((e) => e.type === 'tool_call_requested').length, 0, text);
      const output = events.find((e) => e.type === 'step_output');
      assert.equal(output?.type === 'step_output' && output.output, text);
      const audit = events.find((e) => e.type === 'step_audit' && e.kind === 'text_tool_calls');
      assert.match(audit?.type === 'step_audit' ? String(audit.data.why) : '', why);
    }
  });
});
