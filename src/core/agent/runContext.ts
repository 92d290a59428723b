import type { FlatConfig } from '../config/configSchema';
import type { ContextBudget } from '../context/contextBudget';
import type { LlmClient } from '../llm/llmTypes';
import type { EventLog } from '../plan/eventLog';
import type { ApprovalBroker } from '../policy/approvalBroker';
import type { MemoryStore } from '../memory/memoryStore';
import type { Logger } from '../ports';
import type { ToolRegistry } from '../tools/toolRegistry';
import type { CheckpointRecorder } from '../checkpoints/checkpointRecorder';
import type { InstructionsFile } from '../instructions/projectInstructions';

/** Everything one run's components share. Built once by AgentRun. */
export interface RunContext {
  runId: string;
  task: string;
  workspaceRoot: string;
  config: FlatConfig;
  llm: LlmClient;
  log: EventLog;
  approvals: ApprovalBroker;
  registry: ToolRegistry;
  trusted: boolean;
  logger: Logger;
  signal: AbortSignal;
  /** Per-run counter of model responses with tool calls, for fallback ids `call_{batch}_{index}`. */
  nextBatch(): number;
  /** When true (the extension), a denied required gate waits for Retry instead of ending the step. */
  holdDeniedGates: boolean;
  /** Resolves when `retryStep(stepId)` is called, or rejects when the run is cancelled. */
  waitForRetry(stepId: string): Promise<void>;
  /** How many prompt tokens each request may use (docs/design.md, “Context budget and memory”). */
  budget: ContextBudget;
  /** The workspace's memory; absent when the host gave no memory file. */
  memory?: MemoryStore;
  /** Records every file change of the run (docs/design.md, “Checkpoints and revert”); absent when the run has no checkpoint folder. */
  checkpoints?: CheckpointRecorder;
  /** The project's instructions files read at the start (docs/design.md, “Project instructions”); none in an untrusted workspace. */
  instructions?: readonly InstructionsFile[];
  /** The run's own files (trace, lock, checkpoint folder): its tools never write them unasked. */
  runFiles: readonly string[];
  /** Why the run is past cortex.limits.maxRunTokens or maxRunCost (docs/design.md, “Usage and cost”), else undefined. */
  overBudget(): string | undefined;
}
