import type { FlatConfig } from '../config/configSchema';
import type { ChatMessage } from '../llm/llmTypes';
import type { EventLog } from '../plan/eventLog';
import type { ToolDefinition } from '../tools/toolTypes';
import { injectRelevantMemory } from './memoryInjection';
import { MemoryStore } from './memoryStore';
import { createMemoryTools } from './memoryTools';

// The memory feature's part of one run (docs/design.md, “Context budget and memory”): the workspace's
// memory file when the host gave one, the tools that read and write it, and the memories put into
// each step's conversation. Without a memory file there are no memory tools and nothing is added.

export interface RunMemoryOptions {
  /** The workspace's memory file (outside the repository); undefined: the run has no memory. */
  file: string | undefined;
  config: Pick<FlatConfig, 'cortex.memory.searchLimit'>;
  log: EventLog;
}

export class RunMemory {
  /** memory_store, memory_search, memory_forget when the run has a memory file; none otherwise. */
  readonly tools: readonly ToolDefinition[];
  private readonly store: MemoryStore | undefined;

  constructor(private readonly options: RunMemoryOptions) {
    this.store = options.file ? new MemoryStore(options.file) : undefined;
    this.tools = this.store ? createMemoryTools(this.store) : [];
  }

  /** Before a step's first turn: the memories that best match the step, with a `memory_injected` audit. */
  async addRelevant(messages: ChatMessage[], stepId: string): Promise<void> {
    if (!this.store) return;
    await injectRelevantMemory({ memory: this.store, searchLimit: this.options.config['cortex.memory.searchLimit'], log: this.options.log }, stepId, messages);
  }
}
