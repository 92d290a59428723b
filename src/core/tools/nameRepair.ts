import type { ChatMessage, LlmClient } from '../llm/llmTypes';
import { normalizeToolName } from './nameNormalizer';
import { runRepairLoop } from './repairLoop';
import { excerpt, readRepairsArray, repairMessages } from './repairReply';

// Tool-name repair (docs/design.md, “LLM repair of tool names and arguments”): calls whose name resolves to no visible tool are sent, in one
// batched JSON-only LLM call, together with the visible tool names; a proposed name counts only if
// it is exactly one of them, so a repair can never widen what the model may call. Prompt building
// and reply parsing are pure; `repairToolNames` does the call(s).

export type NameRepairReason = 'tool_not_found' | 'tool_not_in_profile' | 'missing_name';

export interface NameRepairCandidate {
  tool_call_id: string;
  name: string;
  reason: NameRepairReason;
  /** The call's raw arguments (helps the model tell which tool was meant). */
  arguments: string;
}

export interface NameRepairLimits {
  maxVisibleToolNames: number;
  maxCandidates: number;
}

export interface NameRepairPrompt {
  messages: ChatMessage[];
  sent: NameRepairCandidate[];
  /** Candidates over maxCandidates, not sent this time. */
  notSent: NameRepairCandidate[];
  visibleNamesSent: number;
  visibleNamesTruncated: boolean;
}

const SYSTEM_PROMPT = [
  'You repair tool names in tool calls an assistant made. Each candidate used a tool name that is not available.',
  'For each candidate, choose the one available tool the call most likely meant, judging by its name and arguments.',
  'Use a name exactly as written in "visible_tools". Leave a candidate out if no tool fits.',
  'Reply with one JSON object and nothing else: {"repairs":[{"tool_call_id":"<id>","name":"<exact visible tool name>"}]}',
].join('\n');

/** Visible names ordered so that names sharing a word with a candidate come first (stable). */
function rankVisibleNames(visibleNames: string[], candidates: NameRepairCandidate[]): string[] {
  const words = new Set(candidates.flatMap((c) => normalizeToolName(c.name).split('_').filter(Boolean)));
  const score = (name: string) =>
    normalizeToolName(name)
      .split('_')
      .filter((w) => words.has(w)).length;
  return visibleNames
    .map((name, i) => ({ name, i, s: score(name) }))
    .sort((a, b) => b.s - a.s || a.i - b.i)
    .map((e) => e.name);
}

/** Builds the repair prompt; caps the visible names and candidates, marking any truncation. */
export function buildNameRepairPrompt(candidates: NameRepairCandidate[], visibleNames: string[], limits: NameRepairLimits): NameRepairPrompt {
  const sent = candidates.slice(0, limits.maxCandidates);
  const notSent = candidates.slice(limits.maxCandidates);
  const ranked = rankVisibleNames(visibleNames, sent);
  const shown = ranked.slice(0, limits.maxVisibleToolNames);
  const visibleNamesTruncated = shown.length < visibleNames.length;
  const body: Record<string, unknown> = {
    visible_tools: shown,
    ...(visibleNamesTruncated ? { visible_tools_truncated: `${visibleNames.length - shown.length} more tool names not shown` } : {}),
    candidates: sent.map((c) => ({ tool_call_id: c.tool_call_id, name: c.name, reason: c.reason, arguments: excerpt(c.arguments, 500) })),
  };
  return {
    messages: repairMessages(SYSTEM_PROMPT, body),
    sent,
    notSent,
    visibleNamesSent: shown.length,
    visibleNamesTruncated,
  };
}

export interface NameRepairResult {
  /** tool_call_id → exact visible tool name. */
  repaired: Map<string, string>;
  failed: Array<{ tool_call_id: string; reason: string }>;
}

/**
 * Reads a repair reply. A repair counts only for a candidate that was sent and a name that is
 * exactly a visible tool; every sent candidate not repaired is listed in `failed` with the reason.
 */
export function parseNameRepairReply(content: string, sentIds: string[], visibleNames: string[]): NameRepairResult {
  const repaired = new Map<string, string>();
  const reasons = new Map<string, string>();
  const parsed = readRepairsArray(content);
  if (!parsed.ok) return { repaired, failed: sentIds.map((id) => ({ tool_call_id: id, reason: parsed.error })) };
  const visible = new Set(visibleNames);
  const sent = new Set(sentIds);
  for (const entry of parsed.repairs) {
    const id = (entry as { tool_call_id?: unknown })?.tool_call_id;
    const name = (entry as { name?: unknown })?.name;
    if (typeof id !== 'string' || !sent.has(id) || repaired.has(id)) continue;
    if (typeof name !== 'string') reasons.set(id, 'the reply gave no name');
    else if (!visible.has(name)) reasons.set(id, `the proposed name ${JSON.stringify(name)} is not a visible tool`);
    else repaired.set(id, name);
  }
  const failed = sentIds.filter((id) => !repaired.has(id)).map((id) => ({ tool_call_id: id, reason: reasons.get(id) ?? 'the reply proposed no repair' }));
  return { repaired, failed };
}

export interface NameRepairAudit {
  attempts: number;
  candidates: Array<{ tool_call_id: string; name: string; reason: NameRepairReason }>;
  repaired: Array<{ tool_call_id: string; from: string; to: string }>;
  failed: Array<{ tool_call_id: string; reason: string }>;
  visibleToolNames: number;
  visibleToolNamesSent: number;
  visibleToolNamesTruncated: boolean;
  candidatesNotSent: number;
  /** The repair model's replies exactly as received. */
  replies: string[];
  error?: string;
}

export interface NameRepairDeps extends NameRepairLimits {
  llm: LlmClient;
  attempts: number;
  signal?: AbortSignal;
  stepId?: string;
}

/**
 * Runs up to `attempts` batched repair calls (purpose tool-name-repair, no tools, not streamed,
 * temperature 0), each for the candidates still unrepaired. An LLM failure ends the repair with
 * the error in the audit; cancellation is rethrown.
 */
export async function repairToolNames(
  candidates: NameRepairCandidate[],
  visibleNames: string[],
  deps: NameRepairDeps,
): Promise<{ repaired: Map<string, string>; audit: NameRepairAudit }> {
  const byId = new Map(candidates.map((c) => [c.tool_call_id, c]));
  const audit: NameRepairAudit = {
    attempts: 0,
    candidates: candidates.map(({ tool_call_id, name, reason }) => ({ tool_call_id, name, reason })),
    repaired: [],
    failed: [],
    visibleToolNames: visibleNames.length,
    visibleToolNamesSent: 0,
    visibleToolNamesTruncated: false,
    candidatesNotSent: 0,
    replies: [],
  };
  const loop = await runRepairLoop<string>({
    purpose: 'tool-name-repair',
    ids: candidates.map((c) => c.tool_call_id),
    attempts: visibleNames.length === 0 ? 0 : deps.attempts,
    maxCandidates: deps.maxCandidates,
    llm: deps.llm,
    signal: deps.signal,
    stepId: deps.stepId,
    buildRound: (remainingIds) => {
      const prompt = buildNameRepairPrompt(
        remainingIds.map((id) => byId.get(id)!),
        visibleNames,
        deps,
      );
      audit.visibleToolNamesSent = prompt.visibleNamesSent;
      audit.visibleToolNamesTruncated = prompt.visibleNamesTruncated;
      audit.candidatesNotSent = prompt.notSent.length;
      return { messages: prompt.messages, sentIds: prompt.sent.map((c) => c.tool_call_id), notSentIds: prompt.notSent.map((c) => c.tool_call_id) };
    },
    parseReply: (content, sentIds) => parseNameRepairReply(content, sentIds, visibleNames),
  });
  audit.attempts = loop.attempts;
  audit.replies = loop.replies;
  if (loop.error !== undefined) audit.error = loop.error;
  for (const c of candidates) {
    const to = loop.repaired.get(c.tool_call_id);
    if (to !== undefined) audit.repaired.push({ tool_call_id: c.tool_call_id, from: c.name, to });
    else
      audit.failed.push({
        tool_call_id: c.tool_call_id,
        reason: audit.error ?? loop.failures.get(c.tool_call_id) ?? (visibleNames.length === 0 ? 'no visible tools' : 'not repaired'),
      });
  }
  return { repaired: loop.repaired, audit };
}
