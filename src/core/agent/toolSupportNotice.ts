import type { ChatResponse, ToolSpec } from '../llm/llmTypes';
import type { RunContext } from './runContext';

// Some gateways (and some provider transforms in them) drop `tools` from the request: the model
// never sees a tool, answers in text, and the step ends "with nothing done". Nothing in the
// response says so, so the run looks at what it can: a step whose very first answer, to a request
// that offered tools, has no call and says the model cannot act (or writes a call to an offered
// tool as plain text Cortex could not read). The run then says once that the endpoint may not
// support tool calling, naming the model and the endpoint; the step's own checks judge the step.

/** Words of a model that has no tools: "I can't access files", "I don't have the ability to run commands"... */
const CANNOT_ACT =
  /\b(?:I\s+(?:can(?:no|')t|do(?:n'?| no)t|am\s+(?:not\s+able|unable)|'m\s+(?:not\s+able|unable)|have\s+no)|unable\s+to|as an ai)\b[^.\n]{0,80}\b(?:access|read|open|run|execute|browse|call|use|tools?|files?|file\s?system|commands?|functions?)\b/i;

// Keyed by the run's log: each step runs with its own copy of the run's context.
const said = new WeakSet<RunContext['log']>();

/** Whether a step's first answer looks like one given without tools, although tools were offered. */
export function looksToolless(response: Pick<ChatResponse, 'content' | 'toolCalls'>, offered: readonly ToolSpec[]): boolean {
  if (offered.length === 0 || response.toolCalls.length > 0) return false;
  const text = response.content;
  if (CANNOT_ACT.test(text)) return true;
  // A call to an offered tool written out (`read_file(...)`, `"name": "read_file"`) that was not read as a call.
  return offered.some(({ function: { name } }) => new RegExp(`(?:\\b${escape(name)}\\s*\\(|"name"\\s*:\\s*"${escape(name)}")`).test(text));
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Says once per run that the endpoint may not pass tools to the model. */
export function noticeToollessAnswer(context: RunContext, stepId: string, response: ChatResponse, offered: readonly ToolSpec[]): void {
  if (said.has(context.log) || !looksToolless(response, offered)) return;
  said.add(context.log);
  const baseUrl = context.config['cortex.llm.baseUrl'];
  context.log.append({
    type: 'log',
    level: 'warn',
    stepId,
    message: `Model ${response.usedModel} at ${baseUrl} answered step ${stepId} without calling any of the ${offered.length} tools it was offered, in words of a model that has none: the endpoint, or a gateway in front of it, may not support tool calling (or may drop the request's tools). Check that this model and route accept tools.`,
    data: { kind: 'tool_support', model: response.usedModel, baseUrl, offeredTools: offered.length },
  });
}
