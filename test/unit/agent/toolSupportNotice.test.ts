import assert from 'node:assert/strict';
import { looksToolless } from '../../../src/core/agent/toolSupportNotice';
import type { ToolSpec } from '../../../src/core/llm/llmTypes';

const offered: ToolSpec[] = [{ type: 'function', function: { name: 'read_file', description: 'Read', parameters: { type: 'object' } } }];
const answer = (content: string) => ({ content, toolCalls: [] });

describe('looksToolless', () => {
  it('the words of a model without tools, or a call to an offered tool written out, count', () => {
    for (const text of [
      "I can't access files on your machine.",
      'I do not have the ability to run commands here.',
      "I'm unable to read the file system.",
      'As an AI, I cannot browse your files.',
      'To see it, call read_file("a.txt") and send me the output.',
      'Use this: {"name": "read_file", "arguments": {"path": "a.txt"}}',
    ])
      assert.equal(looksToolless(answer(text), offered), true, text);
  });

  it('an ordinary answer, an answer with calls, or a request without tools do not', () => {
    for (const text of ['The file says A.', 'The tests cannot run without a database; the README says so.', 'Summary: three files changed.'])
      assert.equal(looksToolless(answer(text), offered), false, text);
    assert.equal(looksToolless({ content: "I can't access files.", toolCalls: [{} as never] }, offered), false);
    assert.equal(looksToolless(answer("I can't access files."), []), false);
  });
});
