import type { ChatMessage, ToolSpec } from '../llm/llmTypes';
import { isPrunedStub, messagesOf, shapeOf, type ConversationShape } from './conversationShape';
import { contentText, countMessageTokens, countPromptTokens } from './tokenCounter';

// The cheap, deterministic part of fitting a prompt into its budget (docs/design.md, “Context budget and memory”). In order,
// stopping as soon as the prompt fits:
//   1. drop the injected memory (`<relevant_context>`);
//   2. prune old tool outputs to a short stub, oldest first; the newest turns keep theirs;
//   3. shrink: drop the oldest whole turns (an assistant message with its tool messages).
// Turns dropped in stage 3 are handed to stage 4, compaction (an LLM call, contextFitter.ts), which
// writes one summary in their place; room for that summary is set aside here.

export type ContextActionKind = 'drop_memory' | 'prune_tool_outputs' | 'shrink_turns' | 'compact';

/** One stage's effect on a request; `tokensSaved` is in our tokenizer's tokens (negative for a summary added). */
export interface ContextAction {
  kind: ContextActionKind;
  count: number;
  tokensSaved: number;
}

export interface FitOptions {
  /** Prompt tokens allowed, counted by our tokenizer. */
  limit: number;
  tools?: readonly ToolSpec[];
  /** The newest turns whose tool outputs are pruned last (default 2; the newest one never is). */
  keepRecentOutputs?: number;
  /** Room kept for the summary that replaces dropped turns. */
  summaryAllowance: number;
  /**
   * Shrinking drops turns until the prompt is at most this share of the limit (default 0.6), so
   * that the next turns of a long step fit without another compaction right away.
   */
  shrinkTarget?: number;
  /** Drop (and so compact) at least one turn even if pruning made the prompt fit. */
  forceShrink?: boolean;
}

export interface FitPlan {
  /** The conversation after stages 1–3; `summary` is the old summary until stage 4 replaces it. */
  shape: ConversationShape;
  tokensBefore: number;
  /** After stages 1–3, counting the summary allowance when turns were dropped. */
  tokensAfter: number;
  actions: ContextAction[];
  /** Turns removed by stage 3, oldest first: what stage 4 summarises (with the old summary). */
  dropped: ChatMessage[][];
  /** Whether the plan fits the limit (once the dropped turns became a summary within the allowance). */
  fits: boolean;
}

const STUB_WORTH_TOKENS = 64;

/** `[output of read_file pruned: 12 KB — call again if needed]` */
export function prunedStub(toolName: string, content: string): string {
  return `[output of ${toolName} pruned: ${formatSize(Buffer.byteLength(content, 'utf8'))} — call again if needed]`;
}

function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const kb = bytes / 1024;
  return kb < 10 ? `${kb.toFixed(1)} KB` : `${Math.round(kb)} KB`;
}

function sum(messages: readonly ChatMessage[]): number {
  let tokens = 0;
  for (const message of messages) tokens += countMessageTokens(message);
  return tokens;
}

/** Runs stages 1–3 on `messages` (not changed) and says what the prompt would look like. */
export function planFit(messages: readonly ChatMessage[], options: FitOptions): FitPlan {
  const shape = shapeOf(messages);
  const tokensBefore = countPromptTokens(messages, options.tools);
  let total = tokensBefore;
  const actions: ContextAction[] = [];
  const plan = (fits: boolean, dropped: ChatMessage[][] = [], allowance = 0): FitPlan => ({
    shape,
    tokensBefore,
    tokensAfter: total + allowance,
    actions,
    dropped,
    fits,
  });
  if (total <= options.limit && !options.forceShrink) return plan(true);

  // 1. Memory is a convenience; it goes first.
  if (shape.memory.length > 0 && total > options.limit) {
    const saved = sum(shape.memory);
    actions.push({ kind: 'drop_memory', count: shape.memory.length, tokensSaved: saved });
    total -= saved;
    shape.memory = [];
    if (total <= options.limit && !options.forceShrink) return plan(true);
  }

  // 2. Old tool outputs become stubs, oldest first; the newest turns keep theirs (the newest two,
  // or only the newest one when that is not enough).
  const keepRecent = options.keepRecentOutputs ?? 2;
  let pruned = 0;
  let prunedSaved = 0;
  for (const keep of keepRecent > 1 ? [keepRecent, 1] : [keepRecent]) {
    for (let t = 0; t < shape.turns.length - keep && total > options.limit; t++) {
      const turn = shape.turns[t];
      const names = toolNamesOf(turn[0]);
      for (let i = 1; i < turn.length && total > options.limit; i++) {
        const message = turn[i];
        if (message.role !== 'tool' || isPrunedStub(message)) continue;
        const before = countMessageTokens(message);
        if (before <= STUB_WORTH_TOKENS) continue;
        const stub: ChatMessage = {
          role: 'tool',
          tool_call_id: message.tool_call_id,
          content: prunedStub(names.get(message.tool_call_id) ?? 'tool', contentText(message.content)),
        };
        const saved = before - countMessageTokens(stub);
        if (saved <= 0) continue;
        turn[i] = stub;
        total -= saved;
        pruned++;
        prunedSaved += saved;
      }
    }
  }
  if (pruned > 0) actions.push({ kind: 'prune_tool_outputs', count: pruned, tokensSaved: prunedSaved });
  if (total <= options.limit && !options.forceShrink) return plan(true);

  // 3. Drop whole turns, oldest first, down to the shrink target; at least the newest turn stays
  // unless even it does not fit. The old summary is folded into the new one.
  if (shape.turns.length === 0) return plan(total <= options.limit);
  const target = Math.min(options.limit, Math.floor(options.limit * (options.shrinkTarget ?? 0.6)));
  const oldSummary = shape.summary ? countMessageTokens(shape.summary) : 0;
  let after = total - oldSummary + options.summaryAllowance;
  let drop = 0;
  do {
    after -= sum(shape.turns[drop++]);
  } while (drop < shape.turns.length - 1 && after > target);
  if (after > options.limit && drop < shape.turns.length) drop++;
  const dropped = shape.turns.splice(0, drop);
  const droppedTokens = dropped.reduce((n, turn) => n + sum(turn), 0) + oldSummary;
  actions.push({ kind: 'shrink_turns', count: dropped.length, tokensSaved: droppedTokens });
  total -= droppedTokens;
  return plan(total + options.summaryAllowance <= options.limit, dropped, options.summaryAllowance);
}

function toolNamesOf(assistant: ChatMessage): Map<string, string> {
  const names = new Map<string, string>();
  if (assistant.role === 'assistant' && Array.isArray(assistant.tool_calls)) {
    for (const call of assistant.tool_calls) if (call.type === 'function') names.set(call.id, call.function.name);
  }
  return names;
}

export { messagesOf };
