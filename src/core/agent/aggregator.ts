import { clipToTokens } from '../context/tokenCounter';
import type { PlanState } from '../plan/planTypes';
import { callLlm } from './llmCall';
import type { RunContext } from './runContext';

/** Tokens of one step's output in the summary prompt, at most. */
const MAX_OUTPUT_TOKENS = 1_500;

/**
 * The aggregator's prompt: the task, every completed step's output, and which steps are blocked.
 * Outputs are clipped by tokens: at most 1,500 each, and together at most 70 % of `promptBudget`.
 */
export function buildAggregatorMessages(state: PlanState, promptBudget = Infinity) {
  const steps = state.stepOrder.map((id) => state.steps.get(id)!);
  const done = steps.filter((s) => s.status === 'completed');
  const perOutput = Math.max(20, Math.min(MAX_OUTPUT_TOKENS, Math.floor((promptBudget * 0.7) / Math.max(1, done.length))));
  const blocked = steps.filter((s) => s.status === 'blocked' || s.status === 'failed');
  const body = [
    `Task: ${state.task}`,
    done.length
      ? `Completed steps and their outputs:\n${done.map((s) => `### ${s.id}: ${s.description}\n${clipToTokens(s.output ?? '', perOutput)}`).join('\n\n')}`
      : 'No step completed.',
    blocked.length
      ? `Steps that did NOT complete (blocked or failed):\n${blocked.map((s) => `- ${s.id}: ${s.description} (${s.status}${s.endReason ? `: ${s.endReason}` : ''})`).join('\n')}`
      : 'Every step completed.',
  ].join('\n\n');
  return [
    {
      role: 'system' as const,
      content:
        'You summarise the result of an agent run for the user. Be concise and factual: report what was done, using only the step outputs given, and say plainly which steps did not complete and why.',
    },
    { role: 'user' as const, content: body },
  ];
}

/** One LLM call over the step outputs; on failure the run still ends, with a plain fallback answer. */
export async function aggregate(context: RunContext): Promise<string> {
  const response = await callLlm(context, {
    purpose: 'aggregator',
    messages: buildAggregatorMessages(context.log.state, context.features.contextBudget.promptLimit()),
    stream: false,
  });
  return response.content.trim();
}
