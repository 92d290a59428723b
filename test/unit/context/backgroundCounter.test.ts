import assert from 'node:assert/strict';
import { backgroundCounterStats, countInBackground } from '../../../src/core/context/backgroundCounter';
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

  it('sends the requests of one turn of the event loop as one message, each distinct text once', async () => {
    await countInBackground(['start the worker'], () => assert.fail('counted on this thread'));
    const before = backgroundCounterStats();
    const first = ['shared text', filler(120), 'only in the first'];
    const second = ['shared text', 'only in the second', filler(120)];
    const [a, b] = await Promise.all([
      countInBackground(first, () => assert.fail('counted on this thread')),
      countInBackground(second, () => assert.fail('counted on this thread')),
    ]);
    assert.deepEqual([a, b], [first.map(countTextTokens), second.map(countTextTokens)]);
    const after = backgroundCounterStats();
    assert.deepEqual([after.asked - before.asked, after.posted - before.posted, after.messages - before.messages], [6, 4, 1]);
  });

  it('does not send a long text again while it is being counted for another prompt', async () => {
    const system = `You carry out one step. ${filler(300)} ${Date.now()}`;
    const first: ChatMessage[] = [
      { role: 'system', content: system },
      { role: 'user', content: 'first step' },
    ];
    const second: ChatMessage[] = [
      { role: 'system', content: system },
      { role: 'user', content: 'second step' },
    ];
    const before = backgroundCounterStats();
    const counting = countPromptTokensSoon(first);
    // The first count is on its way to the worker, not back yet, when the second prompt asks.
    await new Promise((resolve) => setImmediate(resolve));
    const [a, b] = await Promise.all([counting, countPromptTokensSoon(second)]);
    assert.deepEqual([a, b], [countPromptTokens(structuredClone(first)), countPromptTokens(structuredClone(second))]);
    assert.equal(backgroundCounterStats().asked - before.asked, 3, 'the system text once, each step text once');
  });
});
