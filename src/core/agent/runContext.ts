import type { FlatConfig } from '../config/configSchema';
import type { LlmClient } from '../llm/llmTypes';
import type { EventLog } from '../plan/eventLog';
import type { ApprovalBroker } from '../policy/approvalBroker';
import type { Logger } from '../ports';
import type { ToolRegistry } from '../tools/toolRegistry';
import type { RunFeatures } from './runFeatures';

/**
 * What every part of one run uses: who and what the run is, its settings, model, log, approvals,
 * tools and trust, its cancel signal, and the agent's own run services (batch numbers, Retry of a
 * denied gate, the run's own files, the run caps). A feature's run state is not here: it lives in
 * the feature's run object (`features`, runFeatures.ts). Built once by AgentRun; each step runs
 * with a copy that has the step's own signal.
 */
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
  /** The run's own files (trace, lock, checkpoint folder): its tools never write them unasked. */
  runFiles: readonly string[];
  /** Why the run is past cortex.limits.maxRunTokens or maxRunCost (docs/design.md, “Usage and cost”), else undefined. */
  overBudget(): string | undefined;
  /** The features' run objects: the context budget, the project instructions, memory, checkpoints. */
  features: RunFeatures;
}
