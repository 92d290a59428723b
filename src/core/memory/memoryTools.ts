import { z } from 'zod';
import type { ToolDefinition } from '../tools/toolTypes';
import { ToolError } from '../tools/toolTypes';
import { MAX_MEMORY_TEXT_CHARS, MemoryError, type MemoryEntry, type MemoryStore } from './memoryStore';

// The memory tools (docs/design.md, “Context budget and memory”). `memory_search` only reads; `memory_store` and
// `memory_forget` change nothing but this workspace's own memory file, so the default policy
// allows all three (read-only and workspace-local writes). Built-in aliases: memory.store,
// memory.search, memory.forget.

const StoreArgs = z.strictObject({
  text: z.string().min(1).max(MAX_MEMORY_TEXT_CHARS).describe('The fact to remember, self-contained (it is read later without this conversation)'),
  tags: z.array(z.string().min(1).max(40)).max(10).optional().describe('Short keywords that help find it again'),
});
const SearchArgs = z.strictObject({
  query: z.string().min(1).max(1_000).describe('Words to look for'),
  limit: z.number().int().min(1).max(20).optional().describe('Most results to return (default 5)'),
});
const ForgetArgs = z.strictObject({
  id: z.string().min(1).max(64).describe('The id of the memory, as memory_search shows it'),
});

/** The memory file lies outside the workspace: the checkpoints do not record its changes. */
const MEMORY = { kind: 'memory' } as const;

function line(entry: MemoryEntry): string {
  return `[${entry.id}]${entry.tags.length ? ` (${entry.tags.join(', ')})` : ''} ${entry.text}`;
}

/** Store errors (full, unreadable file…) reach the model as tool errors, in words. */
async function guarded<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof MemoryError) throw new ToolError(error.message);
    throw error;
  }
}

export function createMemoryTools(store: MemoryStore): ToolDefinition[] {
  const memoryStore: ToolDefinition<typeof StoreArgs> = {
    name: 'memory_store',
    description:
      'Remember a fact about this workspace for later steps and later runs (build commands, conventions, where things are, decisions). Stored outside the repository. Keep it short and self-contained.',
    schema: StoreArgs,
    kind: 'write',
    readOnly: false,
    origin: MEMORY,
    idempotent: false,
    changes: 'unrecorded',
    run: (args) => guarded(async () => `Stored memory ${(await store.store(args.text, args.tags ?? [])).id}.`),
  };
  const memorySearch: ToolDefinition<typeof SearchArgs> = {
    name: 'memory_search',
    description: 'Search the facts remembered about this workspace (full-text, best matches first). Each result starts with its id.',
    schema: SearchArgs,
    kind: 'read',
    readOnly: true,
    origin: MEMORY,
    idempotent: true,
    changes: 'none',
    run: (args) =>
      guarded(async () => {
        const hits = await store.search(args.query, args.limit ?? 5);
        return hits.length === 0 ? `(no memory matches "${args.query}")` : hits.map(line).join('\n');
      }),
  };
  const memoryForget: ToolDefinition<typeof ForgetArgs> = {
    name: 'memory_forget',
    description: 'Forget one remembered fact that is wrong or outdated, by its id.',
    schema: ForgetArgs,
    kind: 'write',
    readOnly: false,
    origin: MEMORY,
    idempotent: false,
    changes: 'unrecorded',
    run: (args) =>
      guarded(async () => {
        if (!(await store.forget(args.id))) throw new ToolError(`there is no memory with id "${args.id}"; memory_search shows the ids`);
        return `Forgot memory ${args.id}.`;
      }),
  };
  return [memoryStore, memorySearch, memoryForget] as ToolDefinition[];
}
