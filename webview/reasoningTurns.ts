import type { RunEvent } from '../src/core/plan/events';
import type { ToolCallRecord } from '../src/core/plan/planTypes';

// The model's reasoning per turn of a step (docs/design.md, “The trace format”, llm_request), for
// the tool history: the trace keeps each executor request's reasoning text; the panel folds it under
// the turn it belongs to (right before that turn's first call, or after the calls for the turn
// that answered). Only the panel needs it, so it is folded here from the events, like the rate-limit
// waits, not by the shared reducer. It is shown as plain text, clipped: a trace is untrusted.

/** The most characters of one turn's reasoning kept (head and tail); the host already caps it, a crafted trace may not. */
export const MAX_REASONING_CHARS = 20_000;

/** One executor turn's reasoning. */
export interface TurnReasoning {
  /** 1-based executor turn of the step, as the tool calls count them (`ToolCallRecord.turn`). */
  turn: number;
  text: string;
  model?: string;
}

/** Per step: how many executor turns were answered, and the reasoning of those that had some. */
export interface StepReasoning {
  turns: number;
  reasoning: TurnReasoning[];
}

/** `text` cut to MAX_REASONING_CHARS (head and tail, with a marker saying how much was left out). */
export function clipReasoning(text: string): string {
  if (text.length <= MAX_REASONING_CHARS) return text;
  const keep = MAX_REASONING_CHARS / 2;
  return `${text.slice(0, keep)}\n[... ${text.length - 2 * keep} characters left out ...]\n${text.slice(-keep)}`;
}

/**
 * Folds one event: an answered `executor` request of a step is its next turn (a failed one, retried
 * after a context overflow, is not), and its reasoning, when there is any, is that turn's.
 * Returns the same map when nothing changed.
 */
export function noteReasoningEvent(steps: ReadonlyMap<string, StepReasoning>, event: RunEvent): ReadonlyMap<string, StepReasoning> {
  if (event.type !== 'llm_request' || event.purpose !== 'executor' || !event.ok || event.stepId === undefined) return steps;
  const known = steps.get(event.stepId) ?? { turns: 0, reasoning: [] };
  const turn = known.turns + 1;
  const text = event.reasoning?.trim() ? clipReasoning(event.reasoning) : undefined;
  const next = new Map(steps);
  next.set(event.stepId, {
    turns: turn,
    reasoning: text ? [...known.reasoning, { turn, text, ...(event.usedModel ? { model: event.usedModel } : {}) }] : known.reasoning,
  });
  return next;
}

/** Where each turn's reasoning goes in the tool history: before the first call of its turn, or after the calls. */
export interface ReasoningPlacement {
  byCall: Map<string, TurnReasoning>;
  /** Turns without a call (the step's answer, or calls not recorded): shown after the calls. */
  after: TurnReasoning[];
}

export function placeReasoning(reasoning: readonly TurnReasoning[], calls: readonly ToolCallRecord[]): ReasoningPlacement {
  const byCall = new Map<string, TurnReasoning>();
  const after: TurnReasoning[] = [];
  for (const entry of reasoning) {
    const first = calls.find((call) => call.turn === entry.turn);
    if (first && !byCall.has(first.id)) byCall.set(first.id, entry);
    else after.push(entry);
  }
  return { byCall, after };
}

/** The fold's heading: the turn, the model and the size, so it can be found without opening it. */
export function reasoningHeading(entry: TurnReasoning, answered: boolean): string {
  const size = `${entry.text.length.toLocaleString('en-US')} characters`;
  return `Model reasoning · turn ${entry.turn}${answered ? ' (its answer)' : ''}${entry.model ? ` · ${entry.model}` : ''} · ${size}`;
}
