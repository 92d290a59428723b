import assert from 'node:assert/strict';
import { countPromptTokens, countPromptTokensSoon, promptTokensAtMost } from '../../../src/core/context/tokenCounter';
import type { ChatMessage, ToolSpec } from '../../../src/core/llm/llmTypes';
import { conversation, filler } from './conversationFixtures';

// "Send first, count while it travels" (docs/design.md, “Context budget and memory”): the exact
// count of a prompt that needs no decision is made after the turn that sends it, on the same
// thread, and kept like any other count.

describe('counting a prompt while its request travels', () => {
  const tools: ToolSpec[] = [
    {
      type: 'function',
      function: { name: 'read_file', description: 'Read a file '.repeat(40), parameters: { type: 'object', properties: { path: { type: 'string' } } } },
    },
  ];

  it('counts nothing in the turn that asks, then exactly what countPromptTokens counts, and keeps it', async () => {
    const messages: ChatMessage[] = [
      ...conversation(3, 400),
      { role: 'assistant', content: 'done', tool_calls: [{ id: 'c9', type: 'function', function: { name: 'write_file', arguments: '{"path":"a"}' } }] },
    ];
    const bound = promptTokensAtMost(messages, tools);
    const counting = countPromptTokensSoon(messages, tools);
    assert.equal(promptTokensAtMost(messages, tools), bound, 'nothing counted before the turn ends');
    const exact = countPromptTokens(
      messages.map((m) => structuredClone(m)),
      structuredClone(tools),
    );
    assert.equal(await counting, exact);
    assert.ok(exact < bound);
    assert.equal(promptTokensAtMost(messages, tools), exact, 'the counts are kept: the bound is now the exact count');
  });

  it('counts after a request handed to fetch in the same turn has been written (undici writes it in a setImmediate of its own)', async () => {
    const messages: ChatMessage[] = conversation(2, 350);
    const bound = promptTokensAtMost(messages);
    const counting = countPromptTokensSoon(messages);
    // What undici does with a request on a kept-alive connection: its write waits for one setImmediate.
    const boundWhenWritten = await new Promise<number>((resolve) => setImmediate(() => resolve(promptTokensAtMost(messages))));
    assert.equal(boundWhenWritten, bound, 'nothing counted before the request was written');
    assert.ok((await counting) < bound);
  });

  it('counts the prompt as it was when asked, not the messages appended while it counts', async () => {
    const messages: ChatMessage[] = conversation(2, 300);
    const asked = [...messages];
    const counting = countPromptTokensSoon(messages);
    messages.push({ role: 'assistant', content: filler(500) }, { role: 'user', content: filler(400) });
    assert.equal(await counting, countPromptTokens(asked.map((m) => structuredClone(m))));
  });
});
