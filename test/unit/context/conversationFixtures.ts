import type { ChatMessage } from '../../../src/core/llm/llmTypes';

// Conversations shaped like a step's: system prompt, the step's user message, optional memory,
// then turns of one assistant tool call and its tool message.

/** Text of about `tokens` o200k tokens (" word7" is two tokens). */
export function filler(tokens: number, seed = 0): string {
  const words: string[] = [];
  for (let i = 0; i < Math.ceil(tokens / 2); i++) words.push(` w${(i * 7 + seed) % 97}`);
  return words.join('');
}

export function head(stepText = 'Your step: read the files'): ChatMessage[] {
  return [
    { role: 'system', content: 'You are the executor of one step.' },
    { role: 'user', content: `Overall task: test\n\n${stepText}` },
  ];
}

export function memoryMessage(tokens = 200): ChatMessage {
  return { role: 'user', content: `<relevant_context source="memory">\n${filler(tokens)}\n</relevant_context>` };
}

/** One turn: an assistant calling `tool` and the tool's output of about `outputTokens` tokens. */
export function turn(i: number, outputTokens: number, tool = 'read_file'): ChatMessage[] {
  const id = `call_${i}`;
  return [
    { role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name: tool, arguments: JSON.stringify({ path: `f${i}.txt` }) } }] },
    { role: 'tool', tool_call_id: id, content: filler(outputTokens, i) },
  ];
}

export function conversation(turns: number, outputTokens: number, options: { memory?: boolean } = {}): ChatMessage[] {
  const messages = [...head()];
  if (options.memory) messages.push(memoryMessage());
  for (let i = 0; i < turns; i++) messages.push(...turn(i, outputTokens));
  return messages;
}

/** Every tool message directly answers a call of the assistant message before it (what endpoints require). */
export function assertPaired(messages: readonly ChatMessage[]): void {
  let open: Set<string> | undefined;
  for (const [i, m] of messages.entries()) {
    if (m.role === 'tool') {
      if (!open?.has(m.tool_call_id)) throw new Error(`message ${i}: tool message ${m.tool_call_id} answers no open tool call`);
      open.delete(m.tool_call_id);
      continue;
    }
    if (open && open.size > 0) throw new Error(`message ${i}: tool calls ${[...open].join(', ')} were left unanswered`);
    open = m.role === 'assistant' && m.tool_calls ? new Set(m.tool_calls.map((c) => c.id)) : undefined;
  }
  if (open && open.size > 0) throw new Error(`tool calls ${[...open].join(', ')} were left unanswered at the end`);
}
