import type { PlanState, StepState, ToolCallRecord } from './planTypes';
import { clip } from '../text/clip';
import { isRecord } from '../text/isRecord';

// The tool history the replanner reads (docs/design.md, “The replanner”): what each step really did (every call, its
// arguments and its result), not a model-written summary. Long values are cut with a visible
// marker so one huge file write cannot crowd out the rest of the prompt.

export interface ToolHistoryFormatOptions {
  /** Longest argument value shown (characters). */
  maxValueChars?: number;
  /** Longest tool result or step output shown (characters). */
  maxResultChars?: number;
  /** Text appended to a step's heading, e.g. " [FAILED]" or " (depends on: s5)". */
  headingSuffix?: (step: StepState) => string;
  /** Lines inserted right under the heading (e.g. why the step failed). */
  extraLines?: (step: StepState) => string[];
  /** Show the step's tool calls (default true). */
  includeCalls?: boolean;
  /** Show the step's output when it has one (default true). */
  includeOutput?: boolean;
}

const DEFAULT_VALUE_CHARS = 300;
const DEFAULT_RESULT_CHARS = 1500;

/** Cuts `text` to `max` characters and says how much was left out. */
export function truncateText(text: string, max: number): string {
  return clip(text, max, { marker: (omitted) => `…[truncated ${omitted} chars]` });
}

function formatValue(value: unknown, max: number): string {
  if (typeof value === 'string') return JSON.stringify(truncateText(value, max));
  return truncateText(JSON.stringify(value) ?? String(value), max);
}

/** `name(key="value", n=3)`; arguments that are not a JSON object are shown raw. */
export function formatCallSignature(call: Pick<ToolCallRecord, 'name' | 'arguments' | 'rawArguments'>, maxValueChars = DEFAULT_VALUE_CHARS): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(call.arguments);
  } catch {
    parsed = undefined;
  }
  if (isRecord(parsed)) {
    const args = Object.entries(parsed).map(([key, value]) => `${key}=${formatValue(value, maxValueChars)}`);
    return `${call.name}(${args.join(', ')})`;
  }
  const raw = call.arguments || call.rawArguments;
  return `${call.name}(${raw ? truncateText(raw, maxValueChars) : ''})`;
}

/** One history line: `- write_file(path="a") → "File written"`, pending calls marked ❌. */
export function formatToolCall(call: ToolCallRecord, options: ToolHistoryFormatOptions = {}): string {
  const signature = formatCallSignature(call, options.maxValueChars ?? DEFAULT_VALUE_CHARS);
  const max = options.maxResultChars ?? DEFAULT_RESULT_CHARS;
  const result = call.result ?? call.reason ?? '';
  switch (call.status) {
    case 'pending':
    case 'awaiting_approval':
      return `- ${signature} → status: "${call.status}" ❌`;
    case 'success':
      return `- ${signature} → ${JSON.stringify(truncateText(result, max))}`;
    case 'error':
      return `- ${signature} → error: ${JSON.stringify(truncateText(result, max))}`;
    case 'rejected':
      return `- ${signature} → rejected: ${JSON.stringify(truncateText(result, max))}`;
  }
}

/** One step's block: heading, optional extra lines, tool calls and output. */
export function formatStepHistory(step: StepState, options: ToolHistoryFormatOptions = {}): string {
  const lines = [`### Step ${step.id}: ${step.description}${options.headingSuffix?.(step) ?? ''}`];
  lines.push(...(options.extraLines?.(step) ?? []));
  if (options.includeCalls ?? true) {
    if (step.toolCalls.length === 0) lines.push('Tool calls: (none)');
    else lines.push('Tool calls:', ...step.toolCalls.map((call) => formatToolCall(call, options)));
  }
  if ((options.includeOutput ?? true) && step.output !== undefined && step.output !== '') {
    lines.push(`Output: ${JSON.stringify(truncateText(step.output, options.maxResultChars ?? DEFAULT_RESULT_CHARS))}`);
  }
  return lines.join('\n');
}

/**
 * The replanner's input for `stepIds` (live or replaced steps), in the order given, one
 * block per step separated by a blank line. Throws on an id the plan never had.
 */
export function formatToolHistory(state: PlanState, stepIds: readonly string[], options: ToolHistoryFormatOptions = {}): string {
  return stepIds
    .map((id) => {
      const step = state.steps.get(id) ?? state.replacedSteps.get(id);
      if (!step) throw new Error(`formatToolHistory: the plan has no step "${id}"`);
      return formatStepHistory(step, options);
    })
    .join('\n\n');
}
