import { clipToTokens } from '../context/tokenCounter';
import type { ChatMessage } from '../llm/llmTypes';
import type { PlanState } from '../plan/planTypes';
import { describeCheck } from '../plan/stepChecks';
import { TOOL_ERROR_GUIDANCE } from '../tools/toolPipeline';

/** Tokens of one dependency's output in a step's prompt, at most. */
export const MAX_DEPENDENCY_OUTPUT_TOKENS = 2_000;
/** Share of the prompt budget that all dependency outputs together may take. */
const DEPENDENCY_BUDGET_SHARE = 0.25;

export const EXECUTOR_SYSTEM_PROMPT = [
  'You are the executor of one step of a larger plan, working inside a code workspace.',
  'Do the step by calling the workspace tools; paths are relative to the workspace root.',
  'Only claim what your tool calls really did. When the step is done, answer with a short summary of what you did and its result, without calling tools.',
  TOOL_ERROR_GUIDANCE,
].join('\n\n');

/**
 * The first messages of a step's conversation. The user message contains the step's description
 * verbatim, the checks the plan declared for it (docs/design.md, “The verifier and how a step ends”), then the outputs of the steps it depends on (docs/design.md, “The step tool loop”), each clipped by tokens:
 * at most 2,000, and together at most a quarter of `promptBudget` (tokens a request may use).
 */
export function buildStepMessages(state: PlanState, stepId: string, promptBudget = Infinity): ChatMessage[] {
  const step = state.steps.get(stepId);
  if (!step) throw new Error(`unknown step ${stepId}`);
  const parts = [`Overall task: ${state.task}`, `Your step:\n${step.description}`];
  // The step's declared postconditions: the model is told what will be checked, so it does the work that proves them.
  if (step.expects?.length)
    parts.push(`When you answer, the verifier checks (against what really happened):\n${step.expects.map((check) => `- ${describeCheck(check)}`).join('\n')}`);
  const deps = step.dependsOn.map((id) => state.steps.get(id)).filter((s) => s !== undefined);
  if (deps.length > 0) {
    const perDep = Math.max(50, Math.min(MAX_DEPENDENCY_OUTPUT_TOKENS, Math.floor((promptBudget * DEPENDENCY_BUDGET_SHARE) / deps.length)));
    const clip = (text: string) => clipToTokens(text, perDep);
    parts.push(
      'Outputs of the steps this one depends on:\n' + deps.map((dep) => `### ${dep.id}: ${dep.description}\n${clip(dep.output ?? '(no output)')}`).join('\n\n'),
    );
  }
  return [
    { role: 'system', content: EXECUTOR_SYSTEM_PROMPT },
    { role: 'user', content: parts.join('\n\n') },
  ];
}
