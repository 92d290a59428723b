import type { ChatMessage } from '../llm/llmTypes';
import { contentText } from './tokenCounter';

// A request's messages seen as the budget sees them (docs/design.md, “Context budget and memory”):
// - head: everything before the first assistant message (system prompt, the task, the step and its
//   dependencies' outputs) — always kept;
// - memory: the injected `<relevant_context>` message — the first thing dropped;
// - summary: the `<compacted_history>` message that earlier compactions left;
// - turns: an assistant message with the tool messages answering it (and any user message after
//   them), never split.

export const RELEVANT_CONTEXT_OPEN = '<relevant_context';
export const COMPACTED_HISTORY_OPEN = '<compacted_history';
const PRUNED_STUB = /^\[output of \S+ pruned: /;

export function isMemoryMessage(message: ChatMessage): boolean {
  return message.role === 'user' && contentText(message.content).startsWith(RELEVANT_CONTEXT_OPEN);
}

export function isSummaryMessage(message: ChatMessage): boolean {
  return message.role === 'user' && contentText(message.content).startsWith(COMPACTED_HISTORY_OPEN);
}

export function isPrunedStub(message: ChatMessage): boolean {
  return message.role === 'tool' && PRUNED_STUB.test(contentText(message.content));
}

export interface ConversationShape {
  head: ChatMessage[];
  memory: ChatMessage[];
  summary?: ChatMessage;
  turns: ChatMessage[][];
}

export function shapeOf(messages: readonly ChatMessage[]): ConversationShape {
  const shape: ConversationShape = { head: [], memory: [], turns: [] };
  for (const message of messages) {
    if (message.role === 'assistant') shape.turns.push([message]);
    else if (shape.turns.length > 0) shape.turns[shape.turns.length - 1].push(message);
    else if (isMemoryMessage(message)) shape.memory.push(message);
    else if (isSummaryMessage(message) && shape.summary === undefined) shape.summary = message;
    else shape.head.push(message);
  }
  return shape;
}

export function messagesOf(shape: ConversationShape): ChatMessage[] {
  return [...shape.head, ...shape.memory, ...(shape.summary ? [shape.summary] : []), ...shape.turns.flat()];
}
