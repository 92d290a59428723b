import type { ChatMessage } from '../llm/llmTypes';
import { callLlm } from './llmCall';
import { buildPlannerMessages, parsePlannerReply, type ParsedPlan } from './planParsing';
import { planDocument } from './planDocument';
import type { RunContext } from './runContext';
import { toolSummaries } from '../mcp/toolSummaries';

export type PlannedSteps = ParsedPlan;

/** The plan a person denied, and why: the planner writes a new one. */
export interface PlanRevision {
  plan: ParsedPlan;
  feedback: string;
}

export class PlanningError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PlanningError';
  }
}

/**
 * One planner call (plus one corrective retry when the reply is not a valid plan): the task
 * becomes steps with dependencies, validated (shape, dangling indexes, cycles) before any step runs.
 */
export async function planTask(context: RunContext, maxSteps = 100, revision?: PlanRevision): Promise<PlannedSteps> {
  const tools = toolSummaries(context.registry);
  const messages: ChatMessage[] = context.features.instructions.addTo(buildPlannerMessages(context.task, tools));
  // A plan a person denied with feedback is rewritten (docs/design.md, “Step scopes and plan approval”).
  if (revision) messages.push(...revisionMessages(revision));
  let lastError = '';
  for (let attempt = 1; attempt <= 2; attempt++) {
    const response = await callLlm(context, { purpose: 'planner', messages, stream: false, jsonResponse: true });
    try {
      return parsePlannerReply(response.content, { maxSteps });
    } catch (error) {
      lastError = (error as Error).message;
      context.log.append({
        type: 'log',
        level: 'warn',
        message: `Planner reply rejected (attempt ${attempt} of 2): ${lastError}`,
        data: { reply: response.content.slice(0, 2000) },
      });
      messages.push(
        { role: 'assistant', content: response.content },
        { role: 'user', content: `That reply is not a valid plan: ${lastError}. Answer again with only the JSON object.` },
      );
    }
  }
  throw new PlanningError(`The model did not produce a valid plan: ${lastError}`);
}

function revisionMessages(revision: PlanRevision): ChatMessage[] {
  return [
    { role: 'assistant', content: JSON.stringify(planDocument(revision.plan)) },
    {
      role: 'user',
      content: `The user reviewed this plan and did not approve it. Their feedback:\n${revision.feedback}\n\nWrite a new plan that addresses the feedback. Answer with only the JSON object.`,
    },
  ];
}
