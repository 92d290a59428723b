// The folded plan state. Produced only by `applyEvent` (reducer.ts) from the run's events, in the
// host, the CLI and the webview alike, so every consumer sees the same plan.

export type StepStatus = 'not_started' | 'in_progress' | 'completed' | 'failed' | 'blocked';
export type ToolCallStatus = 'pending' | 'success' | 'error' | 'rejected' | 'awaiting_approval';
export type NameResolution = 'exact' | 'alias' | 'normalized' | 'repaired' | 'unknown' | 'missing';
export type RunStatus = 'running' | 'completed' | 'failed' | 'cancelled';

/** Approval metadata of a call waiting for a person (seed 004 §3). */
export interface ApprovalInfo {
  required: boolean;
  denyEffect: 'continue' | 'block';
  reason: string;
  /** sha256 of the exact argument JSON that will run; an answer must quote it. */
  argsHash: string;
  requestId: string;
  feedback?: string;
}

export interface ToolCallRecord {
  id: string;
  index: number;
  turn: number;
  name: string;
  requestedName: string;
  nameResolution: NameResolution;
  /** Arguments as a JSON string (what would run / what ran). */
  arguments: string;
  rawArguments: string;
  isComplete: boolean;
  finishReason: string | null;
  status: ToolCallStatus;
  result?: string;
  error?: boolean;
  /** Why the call never ran or was refused (invalid, unparseable, denied...). */
  reason?: string;
  approval?: ApprovalInfo;
  /** Repair / validation audit for this call (free-form, shown in details). */
  audit?: Record<string, unknown>;
  requestedAt: number;
  completedAt?: number;
  durationMs?: number;
}

export interface Verdict {
  passed: boolean;
  reason: string;
  failedCallIds: string[];
}

export interface StepState {
  id: string;
  description: string;
  status: StepStatus;
  dependsOn: string[];
  /** Id of the first step of this lineage; replacements inherit it. */
  lineage: string;
  replanAttempts: number;
  origin: 'planner' | 'replan';
  output?: string;
  notes: string[];
  files: string[];
  toolCalls: ToolCallRecord[];
  verdict?: Verdict;
  /** Why the step ended as it did (e.g. max_steps_exceeded, all_tool_calls_failed, approval_denied). */
  endReason?: string;
  /** For blocked steps: the failed or denied step that blocked it. */
  blockedBy?: string;
  /** Set when a replan removed this step. */
  replacedBy?: { replanIndex: number; newStepIds: string[] };
  startedAt?: number;
  finishedAt?: number;
  /** Free-form audits per step (failover attempts, batches, repairs). */
  audits: Array<Record<string, unknown>>;
}

export interface ReplanRecord {
  failedStepId: string;
  replacedStepIds: string[];
  newStepIds: string[];
  attempt: number;
  maxAttempts: number;
  reason: string;
  action: 'redesign' | 'give_up';
}

export interface PlanState {
  runId: string;
  task: string;
  title: string;
  status: RunStatus;
  /** Live steps in insertion order (replaced steps move to `replacedSteps`). */
  stepOrder: string[];
  steps: Map<string, StepState>;
  replacedSteps: Map<string, StepState>;
  replans: ReplanRecord[];
  answer?: string;
  error?: string;
  startedAt?: number;
  finishedAt?: number;
  usage: { promptTokens: number; completionTokens: number };
  lastSeq: number;
  /** Bumped whenever steps or edges change; the webview re-lays out only then. */
  structureVersion: number;
}
