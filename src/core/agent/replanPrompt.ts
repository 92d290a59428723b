import type { StepScope } from '../plan/stepScope';
import { z } from 'zod';
import { CONTEXT_EXHAUSTED } from '../context/contextExhausted';
import { clipPlanHistory, HISTORY_CLIP_PASSES } from '../context/historyClip';
import { countPromptTokens } from '../context/tokenCounter';
import type { ChatMessage } from '../llm/llmTypes';
import { subgraphAnchorDeps } from '../plan/planOperations';
import type { PlanState, StepState } from '../plan/planTypes';
import { formatStepHistory, formatToolHistory, type ToolHistoryFormatOptions } from '../plan/toolHistoryFormat';
import type { StepCheck } from '../plan/stepChecks';
import {
  checkRelativeDependencies,
  EXPECTS_RULES,
  expectsOf,
  withStepDependsOn,
  scopesOf,
  formatToolList,
  parseJsonReply,
  PlanReplyError,
  RelativeDependenciesSchema,
  ReplanStepEntrySchema,
} from './planParsing';
import { formatVerdictChecks } from '../plan/checkText';

// The replanner (docs/design.md, “The replanner”): one LLM call that redesigns a failed step together with everything
// downstream of it. It reads the real record (every completed step's full tool history and the
// failed step's calls with the unanswered ones marked), never a summary, and answers with a
// ReplanResult as JSON.

/** `redesign`, `give_up`; spelling variants ("give up", "GIVE-UP") are accepted. */
export const ActionSchema = z.preprocess(
  (v) =>
    typeof v === 'string'
      ? v
          .trim()
          .toLowerCase()
          .replace(/[\s-]+/g, '_')
          .replace(/^giveup$/, 'give_up')
      : v,
  z.enum(['redesign', 'give_up'], 'action must be "redesign" or "give_up"'),
);

/** Kept (not redesigned) steps whose outputs a new step needs, top-level form: new step index → step ids. */
export const UsesSchema = z.preprocess(
  (v) => v ?? {},
  z.record(z.string(), z.array(z.string().trim().min(1), '"uses" values must be lists of step ids'), '"uses" must map new step indexes to step ids'),
);

/** The replanner's reply; dependencies are relative to `new_steps` (0-based). */
export const ReplanResultSchema = z.object({
  action: ActionSchema,
  new_steps: z.preprocess((v) => v ?? [], z.array(ReplanStepEntrySchema, '"new_steps" must be a list of step descriptions')),
  new_dependencies: RelativeDependenciesSchema,
  uses: UsesSchema,
  reason: z.string().trim().optional(),
});

/** A checked replan decision: descriptions, the new steps' postconditions when any declared them, and what each uses. */
export interface ReplanResult {
  action: 'redesign' | 'give_up';
  new_steps: string[];
  new_expects?: Array<StepCheck[] | undefined>;
  new_scopes?: Array<StepScope | undefined>;
  new_dependencies: Record<string, number[]>;
  /** Kept steps whose outputs a new step needs: new step index → step ids. */
  uses: Record<number, string[]>;
  reason?: string;
}

/**
 * Parses and checks the replanner's reply: a redesign needs at least one new step and valid,
 * acyclic relative dependencies; a give_up carries no steps. Throws PlanReplyError.
 */
export function parseReplanReply(content: string, options: { maxNewSteps?: number } = {}): ReplanResult {
  const reply = parseJsonReply(content, ReplanResultSchema, 'replan decision');
  if (reply.action === 'give_up')
    return { action: 'give_up', new_steps: [], new_dependencies: {}, uses: {}, ...(reply.reason ? { reason: reply.reason } : {}) };
  if (reply.new_steps.length === 0)
    throw new PlanReplyError('shape', 'a redesign needs at least one new step in "new_steps" (or answer with "action": "give_up")');
  const maxNewSteps = options.maxNewSteps ?? 50;
  if (reply.new_steps.length > maxNewSteps) {
    throw new PlanReplyError('too_many_steps', `the redesign has ${reply.new_steps.length} new steps; at most ${maxNewSteps} are allowed`);
  }
  const deps = checkRelativeDependencies(reply.new_steps.length, withStepDependsOn(reply.new_steps, reply.new_dependencies), 'new_steps');
  const newDependencies: Record<string, number[]> = {};
  for (const [key, value] of Object.entries(deps)) newDependencies[key] = value;
  const uses: Record<number, string[]> = {};
  for (const [key, ids] of Object.entries(reply.uses)) {
    const index = /^\d+$/.test(key.trim()) ? Number(key.trim()) : NaN;
    if (!(index < reply.new_steps.length)) throw new PlanReplyError('shape', `"uses" key "${key}" is not a new step index (0–${reply.new_steps.length - 1})`);
    uses[index] = [...new Set([...(uses[index] ?? []), ...ids])];
  }
  // A step's own `uses` joins the top-level one (the union of both places), as `dependsOn` does.
  reply.new_steps.forEach((step, index) => {
    if (step.uses && step.uses.length > 0) uses[index] = [...new Set([...(uses[index] ?? []), ...step.uses])];
  });
  const newExpects = expectsOf(reply.new_steps);
  const newScopes = scopesOf(reply.new_steps);
  return {
    action: 'redesign',
    new_steps: reply.new_steps.map((step) => step.description),
    ...(newExpects ? { new_expects: newExpects } : {}),
    ...(newScopes ? { new_scopes: newScopes } : {}),
    new_dependencies: newDependencies,
    uses,
    ...(reply.reason ? { reason: reply.reason } : {}),
  };
}

const REPLANNER_SYSTEM = `You are the replanner of a coding agent. The agent runs a plan of steps; after each step a verifier checks what really happened: every tool call got a result, the step's declared checks ("expects") hold, and its answer claims nothing the record does not back (a file it says it wrote, tests it says passed). One step failed. Redesign the failed step and every step downstream of it so the task can still be completed.

You get the full record of the completed steps (every tool call and its real result) and the failed step's checks with their evidence: build on that work, do not repeat it. You may merge, split or completely rewrite the steps to redesign.

Reply with only one JSON object and nothing else, "action" first:
{"action": "redesign", "reason": "<why, in one sentence>", "new_steps": [{"description": "<new step 0>", "dependsOn": [], "uses": ["<id of a step not redesigned whose output it needs>", ...], "expects": [<checks>], "scope": {"write": [<globs>], "commands": [<command lines>]}}, {"description": "<new step 1>", "dependsOn": [<indexes of earlier new steps it needs first>], "uses": [], "expects": [<checks>], "scope": {...}}, ...]}

Rules:
- Each new step is one concrete, self-contained instruction the executor can finish with the available tools.
${EXPECTS_RULES}
- Give every new step its own "dependsOn": the 0-based positions in "new_steps" of the earlier new steps whose results it needs ([] when none). A step depends only on steps listed before it, so list a step after everything it needs. Each new step may start as soon as its own entry is written and the steps it names are done.
- A new step waits only for the new steps it names and the other steps whose output it needs: name those in its own "uses" (ids such as "s3"; [] when none). Do not make a step wait for work it does not use.
- If the task cannot be finished with the available tools, reply {"action": "give_up", "new_steps": [], "new_dependencies": {}, "reason": "<why>"}.`;

function dependsOnSuffix(step: StepState): string {
  return step.dependsOn.length > 0 ? ` (depends on: ${step.dependsOn.join(', ')})` : '';
}

function earlierRedesigns(state: PlanState, failed: StepState): string[] {
  const lineageOf = (id: string) => (state.steps.get(id) ?? state.replacedSteps.get(id))?.lineage;
  return state.replans
    .filter((r) => lineageOf(r.failedStepId) === failed.lineage)
    .map((r) =>
      r.action === 'redesign'
        ? `- attempt ${r.attempt}: ${r.replacedStepIds.join(', ')} replaced by ${r.newStepIds.join(', ')}, because ${r.reason}`
        : `- attempt ${r.attempt}: gave up, because ${r.reason}`,
    );
}

/**
 * The replanner's request (docs/design.md, “The replanner”): completed steps with their full tool
 * history, the failed step with its calls (unanswered ones marked ❌) and why it failed, the
 * downstream steps to redesign, the other live steps, earlier redesigns of this lineage and the
 * available tools. `stepsToReplan` is the failed step followed by its downstream. Results,
 * outputs and argument values are clipped by tokens, harder until the prompt fits
 * `promptBudget` (tokens a request may use, docs/design.md, “Context budget and memory”).
 */
export function buildReplanMessages(
  state: PlanState,
  failedStepId: string,
  stepsToReplan: readonly string[],
  availableTools: ReadonlyArray<{ name: string; description: string }>,
  options: { maxAttempts?: number; format?: ToolHistoryFormatOptions; promptBudget?: number } = {},
): ChatMessage[] {
  // Clipping is by tokens (below); the formatter's own character limits are out of the way.
  const format: ToolHistoryFormatOptions = { maxValueChars: Number.MAX_SAFE_INTEGER, maxResultChars: Number.MAX_SAFE_INTEGER, ...options.format };
  let messages: ChatMessage[] = [];
  for (const caps of HISTORY_CLIP_PASSES) {
    messages = composeReplanMessages(clipPlanHistory(state, caps), failedStepId, stepsToReplan, availableTools, { ...options, format });
    if (countPromptTokens(messages) <= (options.promptBudget ?? Infinity)) break;
  }
  return messages;
}

function composeReplanMessages(
  state: PlanState,
  failedStepId: string,
  stepsToReplan: readonly string[],
  availableTools: ReadonlyArray<{ name: string; description: string }>,
  options: { maxAttempts?: number; format?: ToolHistoryFormatOptions },
): ChatMessage[] {
  const failed = state.steps.get(failedStepId);
  if (!failed) throw new Error(`buildReplanMessages: "${failedStepId}" is not a live step of the plan`);
  if (!stepsToReplan.includes(failedStepId)) throw new Error(`buildReplanMessages: the steps to redesign must include the failed step ${failedStepId}`);
  for (const id of stepsToReplan) if (!state.steps.has(id)) throw new Error(`buildReplanMessages: "${id}" is not a live step of the plan`);
  const format = options.format ?? {};
  const toReplan = new Set(stepsToReplan);
  const completed = state.stepOrder.filter((id) => state.steps.get(id)?.status === 'completed' && !toReplan.has(id));
  const others = state.stepOrder.filter((id) => state.steps.has(id) && !toReplan.has(id) && !completed.includes(id));
  const downstream = stepsToReplan.filter((id) => id !== failedStepId);
  const anchors = subgraphAnchorDeps(state, [failedStepId, ...downstream]);

  const sections: string[] = [`## Task\n${state.task}`];
  if (state.title) sections[0] += `\n\nPlan: ${state.title}`;
  sections.push(`## Completed steps (full record)\n\n${completed.length > 0 ? formatToolHistory(state, completed, format) : '(none yet)'}`);

  const endReason =
    failed.endReason && failed.endReason !== 'verification_failed' && !failed.verdict?.reason.includes(failed.endReason) ? failed.endReason : undefined;
  const failure = [failed.verdict?.reason, endReason && `end reason: ${endReason}`].filter(Boolean);
  const failedBlock = formatStepHistory(failed, {
    ...format,
    headingSuffix: () => ' [FAILED]',
    extraLines: () => [
      ...(failure.length > 0 ? [`Why it failed: ${failure.join('; ')}`] : []),
      ...formatVerdictChecks(failed),
      ...(failed.endReason === CONTEXT_EXHAUSTED
        ? [
            'It ran out of context window: its work did not fit in one conversation. Split it into several smaller steps that each read or produce less (for example one file or one question per step).',
          ]
        : []),
    ],
  });
  const downstreamBlocks = downstream.map((id) =>
    formatStepHistory(state.steps.get(id)!, { ...format, includeCalls: false, includeOutput: false, headingSuffix: dependsOnSuffix }),
  );
  sections.push(`## Failed step and its downstream (to redesign)\n\n${[failedBlock, ...downstreamBlocks].join('\n\n')}`);

  if (others.length > 0) {
    const lines = others.map((id) => {
      const step = state.steps.get(id)!;
      return `### Step ${id}: ${step.description} [${step.status}]${dependsOnSuffix(step)}`;
    });
    sections.push(`## Other steps still in the plan (not yours to change)\n\n${lines.join('\n')}`);
  }
  const earlier = earlierRedesigns(state, failed);
  if (earlier.length > 0) sections.push(`## Earlier redesigns of this part of the plan\n${earlier.join('\n')}`);
  sections.push(`## Available tools\n${formatToolList(availableTools)}`);

  const attempt = failed.replanAttempts + 1;
  const ask = [
    `## Redesign steps ${stepsToReplan.join(', ')}`,
    options.maxAttempts !== undefined ? `- This is rewrite ${attempt} of at most ${options.maxAttempts}.` : undefined,
    '- You may merge, split or completely rewrite them.',
    anchors.length > 0
      ? `- The steps to redesign relied on: ${anchors.join(', ')}. Name in "uses" those whose output a new step needs.`
      : '- The steps to redesign relied on no other step.',
    '- Reply with the JSON object only.',
  ].filter((line): line is string => line !== undefined);
  sections.push(ask.join('\n'));

  return [
    { role: 'system', content: REPLANNER_SYSTEM },
    { role: 'user', content: sections.join('\n\n---\n\n') },
  ];
}
