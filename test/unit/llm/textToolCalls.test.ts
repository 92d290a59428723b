import assert from 'node:assert/strict';
import { createToolCallAccumulator } from '../../../src/core/llm/toolCallAccumulator';
import { parseTextToolCalls, type TextToolCall } from '../../../src/core/llm/textToolCalls';

// Tool calls written as text, in the shapes the formats document (Hermes function calling, Qwen's
// and Qwen3-Coder's chat templates, Mistral's tokenizer v3 and v11, Llama 3.1's built-in tool
// calling), read whole, streamed split at every position, and cut off at every position.

const schemas: Record<string, Record<string, unknown>> = {
  read_file: { type: 'object', properties: { path: { type: 'string' }, limit: { type: 'integer' } } },
  list_directory: { type: 'object', properties: { path: { type: 'string' } } },
};
const schemaOf = (name: string) => schemas[name];
const read = { name: 'read_file', arguments: { path: 'a.txt' } };
const list = { name: 'list_directory', arguments: { path: '.' } };

const FIXTURES: Array<{ format: string; content: string; calls: TextToolCall[]; text: string }> = [
  {
    format: 'hermes',
    content:
      'I will look.\n<tool_call>\n{"name": "read_file", "arguments": {"path": "a.txt"}}\n</tool_call>\n<tool_call>\n{"name": "list_directory", "arguments": "{\\"path\\": \\".\\"}"}\n</tool_call>',
    calls: [read, list],
    text: 'I will look.',
  },
  {
    format: 'qwen3-coder',
    content:
      'Reading.\n<tool_call>\n<function=read_file>\n<parameter=path>\na.txt\n</parameter>\n<parameter=limit>\n100\n</parameter>\n</function>\n</tool_call>',
    calls: [{ name: 'read_file', arguments: { path: 'a.txt', limit: 100 } }],
    text: 'Reading.',
  },
  {
    format: 'mistral',
    content:
      '[TOOL_CALLS] [{"name": "read_file", "arguments": {"path": "a.txt"}, "id": "Ab3dE5gH9"}, {"name": "list_directory", "arguments": {"path": "."}, "id": "Zz9yX8wV7"}]</s>',
    calls: [read, list],
    text: '',
  },
  {
    format: 'mistral',
    content: '[TOOL_CALLS]read_file[ARGS]{"path": "a.txt"}[TOOL_CALLS]list_directory[ARGS]{"path": "."}',
    calls: [read, list],
    text: '',
  },
  {
    format: 'llama3',
    content: '<|python_tag|>{"name": "read_file", "parameters": {"path": "a.txt"}}; {"name": "list_directory", "parameters": {"path": "."}}<|eom_id|>',
    calls: [read, list],
    text: '',
  },
];

function streamed(pieces: string[]): string {
  const accumulator = createToolCallAccumulator({ batch: 0 });
  for (const piece of pieces) accumulator.push({ choices: [{ index: 0, delta: { content: piece }, finish_reason: null }] });
  accumulator.push({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
  return accumulator.finish().content;
}

describe('tool calls written as text', () => {
  for (const fixture of FIXTURES) {
    describe(`${fixture.format}: ${JSON.stringify(fixture.content.slice(0, 40))}…`, () => {
      it('reads every call and keeps the text around them', () => {
        assert.deepEqual(parseTextToolCalls(fixture.content, schemaOf), { ok: true, format: fixture.format, calls: fixture.calls, text: fixture.text });
      });

      it('reads the same calls however the stream was split (every position)', () => {
        for (let at = 0; at <= fixture.content.length; at++) {
          const whole = streamed([fixture.content.slice(0, at), fixture.content.slice(at)]);
          assert.deepEqual(
            parseTextToolCalls(whole, schemaOf),
            { ok: true, format: fixture.format, calls: fixture.calls, text: fixture.text },
            `split at ${at}`,
          );
        }
      });

      it('never reads a half-written block: a cut-off text gives no call, or only the complete calls before the cut', () => {
        let sawRefusal = false;
        for (let at = 0; at < fixture.content.length; at++) {
          const parsed = parseTextToolCalls(fixture.content.slice(0, at), schemaOf);
          if (!parsed) continue;
          if (!parsed.ok) {
            sawRefusal = true;
            continue;
          }
          assert.deepEqual(parsed.calls, fixture.calls.slice(0, parsed.calls.length), `cut at ${at}: ${JSON.stringify(fixture.content.slice(0, at))}`);
          assert.ok(parsed.calls.length < fixture.calls.length || at >= fixture.content.lastIndexOf('}'), `cut at ${at} read every call`);
        }
        assert.ok(sawRefusal, 'no cut was refused');
      });
    });
  }

  it('reads nothing from text without markers, and refuses mixed formats, missing names and non-object arguments', () => {
    assert.equal(parseTextToolCalls('Just an answer with {"name": "read_file"} in it.'), undefined);
    assert.deepEqual(parseTextToolCalls('<tool_call>{"name": "a"}</tool_call> [TOOL_CALLS]b[ARGS]{}'), {
      ok: false,
      format: 'mixed',
      problem: 'the text mixes the markers of hermes and mistral',
    });
    assert.match((parseTextToolCalls('<tool_call>{"arguments": {}}</tool_call>') as { problem: string }).problem, /has no "name"/);
    assert.match((parseTextToolCalls('<tool_call>{"name": "a", "arguments": [1]}</tool_call>') as { problem: string }).problem, /not a JSON object/);
    assert.match((parseTextToolCalls('<tool_call>{"name": "a"</tool_call>') as { problem: string }).problem, /not complete JSON/);
    assert.match((parseTextToolCalls('see </tool_call> here') as { problem: string }).problem, /without <tool_call>/);
    assert.match((parseTextToolCalls('<|python_tag|>{"name": "a", "parameters": {}} and more') as { problem: string }).problem, /text after/);
  });

  it('Qwen3-Coder: a parameter the schema calls a string stays text even when it looks like a number', () => {
    const parsed = parseTextToolCalls('<function=read_file>\n<parameter=path>\n42\n</parameter>\n</function>', schemaOf);
    assert.deepEqual(parsed, { ok: true, format: 'qwen3-coder', calls: [{ name: 'read_file', arguments: { path: '42' } }], text: '' });
  });
});
