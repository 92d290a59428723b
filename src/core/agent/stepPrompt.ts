import type { ChatMessage } from '../llm/llmTypes';
import type { PlanState } from '../plan/planTypes';
import { TOOL_ERROR_GUIDANCE } from '../tools/toolPipeline';

const MAX_DEPENDENCY_OUTPUT_CHARS = 8_000;

export const EXECUTOR_SYSTEM_PROMPT = [
  'You are the executor of one step of a larger plan, working inside a code workspace.',
  'Do the step by calling the workspace tools; paths are relative to the workspace root.',
  'Only claim what your tool calls really did. When the step is done, answer with a short summary of what you did and its result, without calling tools.',
  TOOL_ERROR_GUIDANCE,
].join('\n\n');

function clip(text: string): string {
  return text.length <= MAX_DEPENDENCY_OUTPUT_CHARS ? text : `${text.slice(0, MAX_DEPENDENCY_OUTPUT_CHARS)}\n…[${text.length - MAX_DEPENDENCY_OUTPUT_CHARS} more characters truncated]`;
}

/**
 * The first messages of a step's conversation. The user message contains the step's description
 * verbatim, then the outputs of the steps it depends on (docs/design.md §5).
 */
export function buildStepMessages(state: PlanState, stepId: string): ChatMessage[] {
  const step = state.steps.get(stepId);
  if (!step) throw new Error(`unknown step ${stepId}`);
  const parts = [`Overall task: ${state.task}`, `Your step:\n${step.description}`];
  const deps = step.dependsOn.map((id) => state.steps.get(id)).filter((s) => s !== undefined);
  if (deps.length > 0) {
    parts.push(
      'Outputs of the steps this one depends on:\n' +
        deps.map((dep) => `### ${dep.id}: ${dep.description}\n${clip(dep.output ?? '(no output)')}`).join('\n\n'),
    );
  }
  return [
    { role: 'system', content: EXECUTOR_SYSTEM_PROMPT },
    { role: 'user', content: parts.join('\n\n') },
  ];
}
