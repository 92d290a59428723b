import type { ChatMessage, LlmClient, Purpose } from '../llm/llmTypes';
import { LlmError } from '../llm/llmTypes';

/** One round's prompt: the messages, and which candidates it carries or leaves out (over the cap). */
export interface RepairRound {
  messages: ChatMessage[];
  sentIds: string[];
  notSentIds: string[];
}

export interface RepairLoopOptions<T> {
  purpose: Extract<Purpose, 'tool-name-repair' | 'tool-call-repair'>;
  /** Candidate tool_call ids, in order. */
  ids: string[];
  attempts: number;
  maxCandidates: number;
  llm: LlmClient;
  signal?: AbortSignal;
  stepId?: string;
  /** Builds the prompt for the ids still unrepaired (and may record prompt facts in its audit). */
  buildRound(remainingIds: string[]): RepairRound;
  /** Parses a reply into accepted repairs and per-id reasons for the rest. */
  parseReply(content: string, sentIds: string[]): { repaired: Map<string, T>; failed: Array<{ tool_call_id: string; reason: string }> };
}

export interface RepairLoopResult<T> {
  repaired: Map<string, T>;
  /** Why each unrepaired id was not repaired (the last round's reasons). */
  failures: Map<string, string>;
  attempts: number;
  /** The repair model's replies exactly as received (audit). */
  replies: string[];
  /** The LLM error that ended the loop, if any. */
  error?: string;
}

/**
 * The loop both repairs share (docs/design.md, “LLM repair of tool names and arguments”): up to `attempts` batched JSON-only calls (no
 * tools, not streamed, temperature 0) for the candidates still unrepaired. An LLM failure ends it
 * with the error recorded; a cancel is rethrown.
 */
export async function runRepairLoop<T>(options: RepairLoopOptions<T>): Promise<RepairLoopResult<T>> {
  const result: RepairLoopResult<T> = { repaired: new Map(), failures: new Map(), attempts: 0, replies: [] };
  for (let attempt = 0; attempt < options.attempts; attempt++) {
    const remaining = options.ids.filter((id) => !result.repaired.has(id));
    if (remaining.length === 0) break;
    const round = options.buildRound(remaining);
    result.attempts++;
    let content: string;
    try {
      const response = await options.llm.chat({
        purpose: options.purpose,
        stepId: options.stepId,
        messages: round.messages,
        stream: false,
        temperature: 0,
        jsonResponse: true,
        signal: options.signal,
      });
      content = response.content;
    } catch (error) {
      if (options.signal?.aborted || (error instanceof LlmError && error.kind === 'cancelled')) throw error;
      result.error = (error as Error).message;
      break;
    }
    result.replies.push(content);
    const parsed = options.parseReply(content, round.sentIds);
    for (const [id, value] of parsed.repaired) result.repaired.set(id, value);
    result.failures = new Map(parsed.failed.map((f) => [f.tool_call_id, f.reason]));
    for (const id of round.notSentIds) result.failures.set(id, `not sent: over the limit of ${options.maxCandidates} candidates per repair call`);
  }
  return result;
}
