import { z } from 'zod';
import type { ChatMessage } from '../llm/llmTypes';
import { extractJsonObjects } from '../llm/replyJson';
import { normalizeRelativeDependencies, type RelativeDependencyProblem } from '../plan/planGraph';
import { oneLine } from '../text/clip';
import { StepExpectsSchema, type StepCheck } from '../plan/stepChecks';
import { StepScopeSchema, type StepScope } from '../plan/stepScope';

// The planner's reply is one JSON object in the message content (docs/design.md, “The planner”), read by the
// one reply reader (llm/replyJson.ts: fences, prose and reasoning blocks are tolerated), but the plan itself is checked strictly (shape, dangling indexes, self-dependencies,
// cycles) so a broken plan never reaches the executor. Errors say what is wrong in words a
// corrective retry prompt can pass straight back to the model.

/** Why a planner or replanner reply was refused. */
export type PlanReplyErrorKind = 'not_json' | 'shape' | 'ambiguous' | 'too_many_steps' | RelativeDependencyProblem['kind'];

export class PlanReplyError extends Error {
  constructor(
    readonly kind: PlanReplyErrorKind,
    message: string,
  ) {
    super(message);
    this.name = 'PlanReplyError';
  }
}

/** A 0-based step index; models sometimes quote it ("2"). */
const StepIndexSchema = z.preprocess(
  (v) => (typeof v === 'string' && /^\s*\d+\s*$/.test(v) ? Number(v.trim()) : v),
  z.number('a step index must be a number').int('a step index must be a whole number').nonnegative('a step index cannot be negative'),
);

/** `{ "<index>": [<index>, ...] }`; a bare index stands for a one-element list, null for none. */
export const RelativeDependenciesSchema = z.preprocess(
  (value) => (value === null || value === undefined ? {} : value),
  z.record(
    z.string(),
    z.preprocess((v): unknown[] => (v === null ? [] : Array.isArray(v) ? (v as unknown[]) : [v]), z.array(StepIndexSchema)),
    'dependencies must be an object like {"1": [0]}',
  ),
);

/** A step: its description, its postconditions (`expects`), what it may touch (`scope`) when the plan declared them, and its own dependencies (`dependsOn`). */
export interface StepEntry {
  description: string;
  expects?: StepCheck[];
  scope?: StepScope;
  /** Indexes of the steps it needs first, written on the step itself so a streamed plan can start it early. */
  dependsOn?: number[];
  /** A redesigned step only: ids of kept steps whose output it needs (the replanner's per-step `uses`). */
  uses?: string[];
}

/** A step's own `dependsOn`: a list of indexes (a bare index or null tolerated, as in "dependencies"). */
const StepDependsOnSchema = z.preprocess((v): unknown[] => (v === null ? [] : Array.isArray(v) ? (v as unknown[]) : [v]), z.array(StepIndexSchema));

const StepObjectShape = {
  description: z.string('a step description must be text').trim().min(1, 'a step description is empty'),
  expects: StepExpectsSchema.optional(),
  dependsOn: StepDependsOnSchema.optional(),
  scope: StepScopeSchema.optional(),
};

/** A redesigned step's own `uses`: ids of kept steps (a bare id or null tolerated). */
const StepUsesSchema = z.preprocess(
  (v): unknown[] => (v === null ? [] : Array.isArray(v) ? (v as unknown[]) : [v]),
  z.array(z.string('"uses" lists step ids').trim().min(1, '"uses" lists step ids')),
);

/**
 * A step as the planner or replanner writes it: a description, or `{"description", "expects"}`.
 * Told apart by hand so an error names the step's real problem, not "invalid union". The
 * replanner's steps may also name the kept steps they use (`uses`).
 */
function stepEntrySchema(withUses: boolean) {
  const objectSchema = z.strictObject(withUses ? { ...StepObjectShape, uses: StepUsesSchema.optional() } : StepObjectShape);
  const keys = withUses ? '"description", "expects", "scope", "dependsOn" and "uses"' : '"description", "expects", "scope" and "dependsOn"';
  return z.unknown().transform((value, ctx): StepEntry => {
    if (typeof value === 'string') {
      const description = value.trim();
      if (!description) ctx.addIssue({ code: 'custom', message: 'a step description is empty' });
      return { description };
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      ctx.addIssue({ code: 'custom', message: 'a step must be a text description or an object {"description": ..., "expects": [...]}' });
      return z.NEVER;
    }
    const parsed = objectSchema.safeParse(value);
    if (parsed.success) {
      const { description, expects, scope, dependsOn } = parsed.data;
      const uses = 'uses' in parsed.data ? parsed.data.uses : undefined;
      return { description, ...(expects ? { expects } : {}), ...(scope ? { scope } : {}), ...(dependsOn ? { dependsOn } : {}), ...(uses ? { uses } : {}) };
    }
    for (const issue of parsed.error.issues) {
      const message =
        issue.code === 'unrecognized_keys' ? `unknown key ${issue.keys.map((k) => JSON.stringify(k)).join(', ')} (a step has ${keys})` : issue.message;
      ctx.addIssue({ code: 'custom', message, path: issue.path });
    }
    return z.NEVER;
  });
}

/** A step of the planner's plan. */
export const StepEntrySchema = stepEntrySchema(false);

/** A new step of the replanner's redesign: the planner's forms plus its own `uses`. */
export const ReplanStepEntrySchema = stepEntrySchema(true);

export const PlannerReplySchema = z.object({
  title: z.string().trim().optional(),
  steps: z.array(StepEntrySchema, '"steps" must be a list of step descriptions').min(1, 'the plan has no steps'),
  dependencies: RelativeDependenciesSchema,
});

/** A checked plan: dependencies only for steps that have some, all indexes valid, no cycle. */
export interface ParsedPlan {
  title: string;
  steps: string[];
  dependencies: Record<number, number[]>;
  /** Each step's postconditions by index (undefined: none declared); absent when no step declared any. */
  expects?: Array<StepCheck[] | undefined>;
  /** Each step's scope by index (undefined: none declared); absent when no step declared one. */
  scopes?: Array<StepScope | undefined>;
}

/** The entries' postconditions by index, or undefined when none declared any (the plain form). */
export function expectsOf(entries: readonly StepEntry[]): Array<StepCheck[] | undefined> | undefined {
  return entries.some((entry) => entry.expects) ? entries.map((entry) => entry.expects) : undefined;
}

/** The entries' scopes by index, or undefined when none declared any. */
export function scopesOf(entries: readonly StepEntry[]): Array<StepScope | undefined> | undefined {
  return entries.some((entry) => entry.scope) ? entries.map((entry) => entry.scope) : undefined;
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const path = issue.path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`)).join('');
      return path ? `${path}: ${issue.message}` : issue.message;
    })
    .join('; ');
}

function preview(content: string): string {
  return oneLine(content, 120);
}

/**
 * The one JSON object in `content` that matches `schema`. `what` names the expected object in
 * errors ("plan", "replan decision"). Several different matching objects are refused as ambiguous.
 */
export function parseJsonReply<S extends z.ZodType>(content: string, schema: S, what: string): z.infer<S> {
  const candidates = extractJsonObjects(content);
  if (candidates.length === 0) {
    throw new PlanReplyError('not_json', content.trim() ? `the reply has no JSON object (it starts: "${preview(content)}")` : 'the reply is empty');
  }
  const results = candidates.map((candidate) => schema.safeParse(candidate));
  const valid = results.filter((r) => r.success).map((r) => r.data);
  if (valid.length === 0) {
    const first = results[0];
    throw new PlanReplyError('shape', `the JSON is not a valid ${what}: ${first.success ? 'unknown problem' : describeIssues(first.error)}`);
  }
  const distinct = new Set(valid.map((v) => JSON.stringify(v)));
  if (distinct.size > 1) throw new PlanReplyError('ambiguous', `the reply contains ${distinct.size} different ${what} objects; answer with exactly one`);
  return valid[0];
}

/** Checks relative dependencies and returns them as `{ index: [deps] }`, only for steps with some. */
export function checkRelativeDependencies(count: number, dependencies: Record<string, number[]>, listName = 'steps'): Record<number, number[]> {
  const normalized = normalizeRelativeDependencies(count, dependencies);
  if ('problem' in normalized)
    throw new PlanReplyError(normalized.problem.kind, `${normalized.problem.message} (indexes are 0-based positions in "${listName}")`);
  const result: Record<number, number[]> = {};
  normalized.deps.forEach((deps, i) => {
    if (deps.length > 0) result[i] = deps;
  });
  return result;
}

/**
 * The top-level dependencies with each step's own `dependsOn` added (the union of both places), so
 * one check covers them (docs/design.md, “The planner”).
 */
export function withStepDependsOn(entries: readonly StepEntry[], dependencies: Record<string, number[]>): Record<string, number[]> {
  const merged: Record<string, number[]> = { ...dependencies };
  entries.forEach((entry, i) => {
    if (entry.dependsOn) merged[String(i)] = [...new Set([...(merged[String(i)] ?? []), ...entry.dependsOn])];
  });
  return merged;
}

/** Parses and checks the planner's reply. Throws PlanReplyError with a message fit for a retry prompt. */
export function parsePlannerReply(content: string, options: { maxSteps?: number } = {}): ParsedPlan {
  const reply = parseJsonReply(content, PlannerReplySchema, 'plan');
  const maxSteps = options.maxSteps ?? 100;
  if (reply.steps.length > maxSteps) throw new PlanReplyError('too_many_steps', `the plan has ${reply.steps.length} steps; at most ${maxSteps} are allowed`);
  const expects = expectsOf(reply.steps);
  const scopes = scopesOf(reply.steps);
  return {
    title: reply.title || 'Plan',
    steps: reply.steps.map((step) => step.description),
    dependencies: checkRelativeDependencies(reply.steps.length, withStepDependsOn(reply.steps, reply.dependencies)),
    ...(expects ? { expects } : {}),
    ...(scopes ? { scopes } : {}),
  };
}

/** `- name: description` lines for the prompts. */
export function formatToolList(tools: ReadonlyArray<{ name: string; description: string }>): string {
  if (tools.length === 0) return '(no tools are available)';
  return tools.map((tool) => `- ${tool.name}: ${tool.description.replace(/\s+/g, ' ').trim()}`).join('\n');
}

/**
 * How to write `expects`, shared by the planner's and the replanner's prompts: the verifier checks
 * every step against them after it ends (docs/design.md, “The verifier and how a step ends”).
 */
export const EXPECTS_RULES = `- Give every step that changes something or claims a result an "expects" list: the checks that prove it was done. The verifier checks them after the step, against what really happened. Checks (paths are relative to the workspace):
  {"changed": "<glob>"}: this step created, modified or deleted a file matching the glob
  {"exists": "<path>"} / {"absent": "<path>"}: the file exists / does not exist after the step
  {"contains": "<path>", "text": "<literal>"} or {"contains": "<path>", "pattern": "<regex>"}: the file's content after the step
  {"command": "<command line>", "exit": <code>}: the verifier runs the command after the step and compares its exit code
  {"called": "<tool name>"}: the step made at least one successful call of that tool (for steps that only read or search)
  {"answer": "<regex>"}: the step's final answer matches
- "expects": [] declares a step that needs no evidence (a pure answer). A step may also be a plain description string when there is nothing to check.
- Give every step that writes files or runs commands a "scope": {"write": ["<glob of the files it may create, change or delete>", ...], "commands": ["<command line it may run>", ...]}. A person may approve the plan once instead of every call: then a call inside its step's scope runs without asking and anything else asks again. A command entry covers that exact command and the same command with more plain arguments; list every command the step and its "command" checks run. Reading and searching need no scope.`;

const PLANNER_SYSTEM = `You are the planner of a coding agent that works inside the user's workspace. Break the user's task into a plan of steps. An executor carries out each step with the tools listed below; steps that do not depend on each other may run in parallel. You do not run anything yourself.

Reply with only one JSON object and nothing else:
{"title": "<short title of the plan>", "steps": [{"description": "<step 0>", "dependsOn": [], "expects": [<checks>], "scope": {"write": [<globs>], "commands": [<command lines>]}}, {"description": "<step 1>", "dependsOn": [<indexes of earlier steps it needs first>], "expects": [<checks>], "scope": {...}}, ...]}

Rules:
- Each step is one concrete, self-contained instruction the executor can finish with the tools: name the files, commands and expected results.
- Write the title first. Give every step its own "dependsOn": the 0-based positions in "steps" of the earlier steps whose results it needs ([] when none). A step depends only on steps listed before it, so list a step after everything it needs. Each step may start as soon as its own entry is written and the steps it names are done, so list the first step of each independent line of work early rather than finishing one line before starting the next.
- Keep the plan short (usually 2 to 8 steps). Do not add steps that need no work.
${EXPECTS_RULES}

Example: {"title": "Add a greeting module", "steps": [{"description": "Read package.json to learn the project layout", "dependsOn": [], "expects": [{"called": "read_file"}]}, {"description": "Write src/greet.ts exporting greet(name)", "dependsOn": [0], "expects": [{"changed": "src/greet.ts"}, {"contains": "src/greet.ts", "pattern": "export function greet"}], "scope": {"write": ["src/greet.ts"]}}, {"description": "Write test/greet.test.ts covering greet", "dependsOn": [1], "expects": [{"changed": "test/greet.test.ts"}], "scope": {"write": ["test/**"]}}, {"description": "Run the tests with npm test", "dependsOn": [2], "expects": [{"command": "npm test", "exit": 0}], "scope": {"commands": ["npm test"]}}, {"description": "Summarise the change for the user", "dependsOn": [3], "expects": []}]}`;

/** The planner's request: the output format and tools in the system message, the task as the user's. */
export function buildPlannerMessages(task: string, tools: ReadonlyArray<{ name: string; description: string }>): ChatMessage[] {
  return [
    { role: 'system', content: `${PLANNER_SYSTEM}\n\nAvailable tools:\n${formatToolList(tools)}` },
    { role: 'user', content: `Task:\n${task}` },
  ];
}
