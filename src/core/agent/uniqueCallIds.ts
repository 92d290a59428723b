import type { AccumulatedToolCall } from '../llm/llmTypes';

/**
 * Some OpenAI-compatible servers number tool calls per response (`call_0` on every turn), so a
 * provider id can repeat within a step. Every call of a step needs its own id (the plan, the
 * approvals and the replayed conversation are keyed by it), so a repeated id becomes
 * `<id>_t<turn>` (or `_t<turn>_<index>` if that is taken too). The conversation sent back uses the
 * new id consistently, which is all an endpoint asks of it.
 */
export function uniqueCallIds(calls: readonly AccumulatedToolCall[], usedIds: ReadonlySet<string>, turn: number): AccumulatedToolCall[] {
  const taken = new Set(usedIds);
  return calls.map((call) => {
    let id = call.id;
    if (taken.has(id)) id = `${call.id}_t${turn}`;
    if (taken.has(id)) id = `${call.id}_t${turn}_${call.index}`;
    for (let n = 2; taken.has(id); n++) id = `${call.id}_t${turn}_${call.index}_${n}`;
    taken.add(id);
    return id === call.id ? call : { ...call, id };
  });
}
