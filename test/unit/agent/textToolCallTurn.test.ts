import assert from 'node:assert/strict';
import { readTextToolCalls, type TextToolCallMode } from '../../../src/core/agent/textToolCallTurn';
import type { ChatResponse, ToolSpec } from '../../../src/core/llm/llmTypes';

const offered: ToolSpec[] = [{ type: 'function', function: { name: 'read_file', description: 'Read', parameters: { type: 'object' } } }];
const response = (content: string, extra: Partial<ChatResponse> = {}): ChatResponse => ({
  content,
  toolCalls: [],
  droppedToolNames: [],
  finishReason: 'stop',
  requestedModel: 'm',
  usedModel: 'm',
  attempts: [],
  notes: [],
  ...extra,
});
const read = (mode: TextToolCallMode, r: ChatResponse, tools = offered) => readTextToolCalls(r, { mode, offered: tools, schemaOf: () => undefined, batch: 4 });
const block = (name: string) => `Text.<tool_call>{"name": "${name}", "arguments": {"path": "a"}}</tool_call>`;

describe('readTextToolCalls (cortex.llm.textToolCalls)', () => {
  it('auto and on read a complete block naming an offered tool into a call marked source "text"', () => {
    for (const mode of ['auto', 'on'] as const) {
      const turn = read(mode, response(block('read_file')));
      assert.equal(turn.response.content, 'Text.');
      assert.deepEqual(
        turn.response.toolCalls.map((c) => [c.id, c.name, c.rawArguments, c.source, c.isComplete]),
        [['call_text_4_0', 'read_file', '{"path":"a"}', 'text', true]],
      );
      assert.deepEqual(turn.audit, { format: 'hermes', read: true, calls: 1 });
    }
  });

  it('auto refuses names that were not offered; on lets them through to name resolution', () => {
    assert.equal(read('auto', response(block('readFile'))).response.toolCalls.length, 0);
    assert.match(String(read('auto', response(block('readFile'))).audit?.why), /not offered: readFile/);
    assert.deepEqual(
      read('on', response(block('readFile'))).response.toolCalls.map((c) => c.name),
      ['readFile'],
    );
  });

  it('reads nothing with off, with native calls, without offered tools, or from a response cut off at its length limit', () => {
    const native = response(block('read_file'), { toolCalls: [{ id: 'x' } as never] });
    for (const turn of [
      read('off', response(block('read_file'))),
      read('on', native),
      read('on', response(block('read_file')), []),
      read('on', response(block('read_file'), { finishReason: 'length' })),
    ])
      assert.equal(turn.response.toolCalls.filter((c) => c.source === 'text').length, 0);
    assert.match(String(read('auto', response(block('read_file'), { finishReason: 'length' })).audit?.why), /cut off/);
  });
});
