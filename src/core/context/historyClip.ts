import type { PlanState, StepState } from '../plan/planTypes';
import { clipToTokens } from './tokenCounter';
import { isRecord } from '../text/isRecord';

// The replanner's record of earlier steps (docs/design.md, “The replanner”) is clipped by tokens, not
// characters (docs/design.md, “Context budget and memory”): each call's result and the step's output to `result` tokens,
// each argument value to `value` tokens. A clipped copy of the plan is formatted as before.

export interface HistoryCaps {
  result: number;
  value: number;
}

/** Looser first: the replanner prompt takes the first that fits its budget. */
export const HISTORY_CLIP_PASSES: readonly HistoryCaps[] = [
  { result: 400, value: 80 },
  { result: 150, value: 40 },
  { result: 50, value: 20 },
  { result: 10, value: 10 },
];

function clipArguments(json: string, maxTokens: number): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return clipToTokens(json, maxTokens);
  }
  if (!isRecord(parsed)) return clipToTokens(json, maxTokens);
  const clipped: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(parsed)) {
    if (typeof value === 'string') clipped[key] = clipToTokens(value, maxTokens);
    else {
      const text = JSON.stringify(value);
      clipped[key] = text !== undefined && text.length > maxTokens ? clipToTokens(text, maxTokens) : value;
    }
  }
  return JSON.stringify(clipped);
}

export function clipStepHistory(step: StepState, caps: HistoryCaps): StepState {
  return {
    ...step,
    output: step.output === undefined ? undefined : clipToTokens(step.output, caps.result),
    toolCalls: step.toolCalls.map((call) => ({
      ...call,
      arguments: clipArguments(call.arguments, caps.value),
      rawArguments: clipToTokens(call.rawArguments, caps.value),
      ...(call.result !== undefined ? { result: clipToTokens(call.result, caps.result) } : {}),
    })),
  };
}

/** A copy of the plan whose steps (live and replaced) are clipped; only what formatting reads. */
export function clipPlanHistory(state: PlanState, caps: HistoryCaps): PlanState {
  const clip = (steps: Map<string, StepState>) => new Map([...steps].map(([id, step]) => [id, clipStepHistory(step, caps)]));
  return { ...state, steps: clip(state.steps), replacedSteps: clip(state.replacedSteps) };
}
