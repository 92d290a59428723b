import { countMessageTokens } from '../context/tokenCounter';
import type { ChatMessage } from '../llm/llmTypes';
import type { EventLog } from '../plan/eventLog';
import type { MemoryStore } from './memoryStore';
import { relevantContextMessage } from './relevantContext';
import { stepAuditEvent } from '../plan/stepAudits';

// Before a step's first turn, the workspace memories that best match the step's description
// (at most cortex.memory.searchLimit) are added to its conversation as `<relevant_context>`, and
// a `memory_injected` audit says which (docs/design.md, “Context budget and memory”). A memory file that cannot be read is
// a warning: the step runs without memories.

const SHOWN_TEXT_CHARS = 200;

/** Where the memories are searched, how many at most (cortex.memory.searchLimit), and the log the audit goes to. */
export interface MemoryInjectionOptions {
  memory: MemoryStore;
  searchLimit: number;
  log: EventLog;
}

export async function injectRelevantMemory(options: MemoryInjectionOptions, stepId: string, messages: ChatMessage[]): Promise<void> {
  const { memory, searchLimit: limit, log } = options;
  const step = log.state.steps.get(stepId);
  if (limit === 0 || !step) return;
  let hits;
  try {
    hits = await memory.search(step.description, limit);
  } catch (error) {
    log.append({ type: 'log', level: 'warn', stepId, message: `Workspace memory not used for ${stepId}: ${(error as Error).message}` });
    return;
  }
  if (hits.length === 0) return;
  const message = relevantContextMessage(hits);
  const firstTurn = messages.findIndex((m) => m.role === 'assistant');
  messages.splice(firstTurn < 0 ? messages.length : firstTurn, 0, message);
  log.append(
    stepAuditEvent(stepId, {
      kind: 'memory_injected',
      data: {
        count: hits.length,
        tokens: countMessageTokens(message),
        memories: hits.map((hit) => ({
          id: hit.id,
          tags: hit.tags,
          score: hit.score,
          text: hit.text.length > SHOWN_TEXT_CHARS ? `${hit.text.slice(0, SHOWN_TEXT_CHARS)}…` : hit.text,
        })),
      },
    }),
  );
}
