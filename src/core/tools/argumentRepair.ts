import type { ChatMessage, LlmClient } from '../llm/llmTypes';
import { runRepairLoop } from './repairLoop';
import { excerpt, readRepairsArray, repairMessages } from './repairReply';
import { schemaExcerpt } from './schemaExcerpt';

// Argument repair (docs/design.md, “LLM repair of tool names and arguments”): calls to a visible tool whose arguments are not valid JSON, too
// large, or fail the tool's schema are sent, in one batched JSON-only LLM call, with an excerpt of
// each tool's schema. Repaired arguments are used only if they validate. Truncated arguments are
// never sent here: the rest of a cut-off call cannot be recovered, only guessed.

export type ArgumentProblem = 'invalid_json' | 'too_large' | 'schema_invalid';

export interface ArgumentRepairCandidate {
  tool_call_id: string;
  tool: string;
  problem: ArgumentProblem;
  /** What is wrong (parse error or validation error naming the fields). */
  error: string;
  /** The arguments as received (raw text). */
  arguments: string;
  /** The tool's strict JSON Schema (the excerpt is taken when the prompt is built). */
  schema: Record<string, unknown>;
}

export interface ArgumentRepairLimits {
  maxCandidates: number;
  maxSchemaBytes: number;
}

export interface ArgumentRepairPrompt {
  messages: ChatMessage[];
  sent: ArgumentRepairCandidate[];
  notSent: ArgumentRepairCandidate[];
  /** Ids whose schema had to be shortened to fit maxSchemaBytes. */
  schemasShortened: string[];
}

/** Raw argument text shown per candidate is capped at this many characters. */
const MAX_ARGUMENT_CHARS = 4000;

const SYSTEM_PROMPT = [
  'You repair the arguments of tool calls an assistant made. Each candidate names the tool, its JSON Schema, the arguments as sent, and what is wrong with them.',
  'For each candidate, write arguments that satisfy the schema and keep the intent and values of the original call: fix the JSON, rename or drop unknown fields, convert wrong types.',
  'Do not invent values you cannot infer from the original arguments; leave such a candidate out.',
  'Reply with one JSON object and nothing else: {"repairs":[{"tool_call_id":"<id>","arguments":{...}}]}',
].join('\n');

/** Builds the repair prompt, capping the candidates and each schema excerpt. */
export function buildArgumentRepairPrompt(candidates: ArgumentRepairCandidate[], limits: ArgumentRepairLimits): ArgumentRepairPrompt {
  const sent = candidates.slice(0, limits.maxCandidates);
  const notSent = candidates.slice(limits.maxCandidates);
  const schemasShortened: string[] = [];
  const body = {
    candidates: sent.map((c) => {
      const schema = schemaExcerpt(c.schema, limits.maxSchemaBytes);
      if (schema !== c.schema) schemasShortened.push(c.tool_call_id);
      return { tool_call_id: c.tool_call_id, tool: c.tool, problem: c.problem, error: c.error, schema, arguments: excerpt(c.arguments, MAX_ARGUMENT_CHARS) };
    }),
  };
  return {
    messages: repairMessages(SYSTEM_PROMPT, body),
    sent,
    notSent,
    schemasShortened,
  };
}

/** Validates repaired arguments for one candidate (the pipeline passes the tool's own validator). */
export type RepairValidator = (toolCallId: string, args: unknown) => { ok: true; value: Record<string, unknown> } | { ok: false; error: string };

export interface ArgumentRepairResult {
  /** tool_call_id → repaired arguments that passed validation. */
  repaired: Map<string, Record<string, unknown>>;
  failed: Array<{ tool_call_id: string; reason: string }>;
}

/**
 * Reads a repair reply. `arguments` may be an object or a JSON string of one; it counts only if
 * `validate` accepts it. Every sent candidate not repaired is in `failed` with the reason.
 */
export function parseArgumentRepairReply(content: string, sentIds: string[], validate: RepairValidator): ArgumentRepairResult {
  const repaired = new Map<string, Record<string, unknown>>();
  const reasons = new Map<string, string>();
  const parsed = readRepairsArray(content);
  if (!parsed.ok) return { repaired, failed: sentIds.map((id) => ({ tool_call_id: id, reason: parsed.error })) };
  const sent = new Set(sentIds);
  for (const entry of parsed.repairs) {
    const id = (entry as { tool_call_id?: unknown })?.tool_call_id;
    if (typeof id !== 'string' || !sent.has(id) || repaired.has(id)) continue;
    let args = (entry as { arguments?: unknown }).arguments;
    if (typeof args === 'string') {
      try {
        args = JSON.parse(args);
      } catch {
        reasons.set(id, 'the repaired arguments are not valid JSON');
        continue;
      }
    }
    if (args === undefined) {
      reasons.set(id, 'the reply gave no arguments');
      continue;
    }
    const checked = validate(id, args);
    if (checked.ok) repaired.set(id, checked.value);
    else reasons.set(id, `the repaired arguments are still invalid: ${checked.error}`);
  }
  const failed = sentIds.filter((id) => !repaired.has(id)).map((id) => ({ tool_call_id: id, reason: reasons.get(id) ?? 'the reply proposed no repair' }));
  return { repaired, failed };
}

export interface ArgumentRepairAudit {
  attempts: number;
  candidates: Array<{ tool_call_id: string; tool: string; problem: ArgumentProblem; error: string }>;
  repaired: Array<{ tool_call_id: string; tool: string }>;
  failed: Array<{ tool_call_id: string; reason: string }>;
  candidatesNotSent: number;
  schemasShortened: string[];
  /** The repair model's replies exactly as received. */
  replies: string[];
  error?: string;
}

export interface ArgumentRepairDeps extends ArgumentRepairLimits {
  llm: LlmClient;
  attempts: number;
  validate: RepairValidator;
  signal?: AbortSignal;
  stepId?: string;
}

/**
 * Runs up to `attempts` batched repair calls (purpose tool-call-repair, no tools, not streamed,
 * temperature 0) for the candidates still unrepaired. An LLM failure ends the repair with the
 * error in the audit; cancellation is rethrown.
 */
export async function repairToolArguments(
  candidates: ArgumentRepairCandidate[],
  deps: ArgumentRepairDeps,
): Promise<{ repaired: Map<string, Record<string, unknown>>; audit: ArgumentRepairAudit }> {
  const byId = new Map(candidates.map((c) => [c.tool_call_id, c]));
  const audit: ArgumentRepairAudit = {
    attempts: 0,
    candidates: candidates.map(({ tool_call_id, tool, problem, error }) => ({ tool_call_id, tool, problem, error })),
    repaired: [],
    failed: [],
    candidatesNotSent: 0,
    schemasShortened: [],
    replies: [],
  };
  const loop = await runRepairLoop<Record<string, unknown>>({
    purpose: 'tool-call-repair',
    ids: candidates.map((c) => c.tool_call_id),
    attempts: deps.attempts,
    maxCandidates: deps.maxCandidates,
    llm: deps.llm,
    signal: deps.signal,
    stepId: deps.stepId,
    buildRound: (remainingIds) => {
      const prompt = buildArgumentRepairPrompt(
        remainingIds.map((id) => byId.get(id)!),
        deps,
      );
      audit.candidatesNotSent = prompt.notSent.length;
      audit.schemasShortened = [...new Set([...audit.schemasShortened, ...prompt.schemasShortened])];
      return { messages: prompt.messages, sentIds: prompt.sent.map((c) => c.tool_call_id), notSentIds: prompt.notSent.map((c) => c.tool_call_id) };
    },
    parseReply: (content, sentIds) => parseArgumentRepairReply(content, sentIds, deps.validate),
  });
  audit.attempts = loop.attempts;
  audit.replies = loop.replies;
  if (loop.error !== undefined) audit.error = loop.error;
  for (const c of candidates) {
    if (loop.repaired.has(c.tool_call_id)) audit.repaired.push({ tool_call_id: c.tool_call_id, tool: c.tool });
    else audit.failed.push({ tool_call_id: c.tool_call_id, reason: audit.error ?? loop.failures.get(c.tool_call_id) ?? 'not repaired' });
  }
  return { repaired: loop.repaired, audit };
}
