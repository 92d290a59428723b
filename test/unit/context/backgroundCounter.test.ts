import assert from 'node:assert/strict';
import { countInBackground } from '../../../src/core/context/backgroundCounter';
import { countPromptTokens, countPromptTokensSoon, countTextTokens } from '../../../src/core/context/tokenCounter';
import type { ChatMessage, ToolSpec } from '../../../src/core/llm/llmTypes';
import { conversation, filler } from './conversationFixtures';

describe('counting on the background thread (docs/design.md, “Context budget and memory”)', function () {
  // The worker's first answer waits for its tokenizer to load.
  this.timeout(20_000);

  it('counts on the worker thread, not with the fallback', async () => {
    const texts = ['hello world', filler(300), 'αβγ δεζ <|endoftext|>', ''];
    const counts = await countInBackground(texts, () => assert.fail('counted on this thread'));
    assert.deepEqual(counts, texts.map(countTextTokens));
  });

  it('counts a prompt exactly as countPromptTokens does, and keeps the counts', async () => {
    const tools: ToolSpec[] = [
      {
        type: 'function',
        function: { name: 'read_file', description: 'Read a file '.repeat(40), parameters: { type: 'object', properties: { path: { type: 'string' } } } },
      },
    ];
    const messages: ChatMessage[] = [
      ...conversation(3, 400),
      { role: 'assistant', content: 'done', tool_calls: [{ id: 'c9', type: 'function', function: { name: 'write_file', arguments: '{"path":"a"}' } }] },
    ];
    const soon = await countPromptTokensSoon(messages, tools);
    const copies = messages.map((m) => structuredClone(m));
    assert.equal(soon, countPromptTokens(copies, structuredClone(tools)));
    assert.equal(await countPromptTokensSoon(messages, tools), soon, 'counted once, then known');
  });

  it('counts the prompt as it was when asked, not the messages appended while it counts', async () => {
    const messages: ChatMessage[] = conversation(2, 300);
    const asked = [...messages];
    const counting = countPromptTokensSoon(messages);
    messages.push({ role: 'assistant', content: filler(500) }, { role: 'user', content: filler(400) });
    assert.equal(await counting, countPromptTokens(asked.map((m) => structuredClone(m))));
  });
});
