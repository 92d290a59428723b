import { z } from 'zod';
import { FilesChangedFields, FilesRevertedFields, StepFileChangeSchema } from './changeSchema';
import { PURPOSES, type Purpose } from '../llm/purpose';
import { StepExpectsSchema } from './stepChecks';
import { ApprovalScopeSchema, RememberedRuleSchema, RememberOfferSchema } from './rememberedApproval';
import { StepScopeSchema } from './stepScope';
import { PlanApprovalRequestedFields, PlanApprovalAnsweredFields, PlanApprovalStateSchema } from './planApprovalSchema';

// The run as an append-only list of events. The same objects are the JSONL trace, the webview's
// feed and the CLI's output; `applyEvent` folds them into PlanState. Types are snake_case because
// the trace format (README) promises them.

const StepStatusSchema = z.enum(['not_started', 'in_progress', 'completed', 'failed', 'blocked']);
const ToolCallStatusSchema = z.enum(['pending', 'success', 'error', 'rejected', 'awaiting_approval']);
const NameResolutionSchema = z.enum(['exact', 'alias', 'normalized', 'repaired', 'unknown', 'missing']);
const PurposeSchema = z.enum(PURPOSES);
export type { Purpose };

const Base = { seq: z.number().int().nonnegative(), time: z.number() };
const Audit = z.record(z.string(), z.unknown());
/**
 * Token usage of a request, a step or a run. `estimated`: some tokens were counted by Cortex's
 * tokenizer because the endpoint reported none. `cost` from cortex.llm.pricing, when priced.
 */
const UsageSchema = z.object({
  promptTokens: z.number(),
  completionTokens: z.number(),
  cachedPromptTokens: z.number().optional(),
  estimated: z.boolean().optional(),
  cost: z.number().optional(),
});

/** An approval request as `tool_call_awaiting_approval` records it (docs/design.md, “Approvals”). */
const ApprovalRequestSchema = z.object({
  required: z.boolean(),
  denyEffect: z.enum(['continue', 'block']),
  reason: z.string(),
  /** sha256 of the exact argument JSON that will run; an answer must quote it. */
  argsHash: z.string(),
  requestId: z.string(),
  /** For a write or an edit: the (shortened) unified diff it would make (docs/design.md, “Checkpoints and revert”). */
  diff: z.string().optional(),
  /** Set when the call may be remembered: what "Approve for this run" would remember (docs/design.md, “Remembered approvals”). */
  remember: RememberOfferSchema.optional(),
});

/** Why an answer was refused; it changed nothing (docs/design.md, “Approvals”). */
export const ApprovalRefusalSchema = z.enum(['stale_hash', 'unknown_request', 'wrong_call', 'already_answered', 'withdrawn', 'malformed']);
export type ApprovalRefusal = z.infer<typeof ApprovalRefusalSchema>;
/** Why a pending request was withdrawn without an answer (docs/design.md, “Approvals”). */
export const ApprovalWithdrawalSchema = z.enum(['run_cancelled', 'step_ended', 'superseded']);
export type ApprovalWithdrawal = z.infer<typeof ApprovalWithdrawalSchema>;

/**
 * A request with its lifecycle as the reducer folds it: `pending` until answered (`approved`,
 * `denied`) or withdrawn. `state` is absent only in snapshots written before it was recorded.
 */
const ApprovalStateSchema = ApprovalRequestSchema.extend({
  state: z.enum(['pending', 'approved', 'denied', 'withdrawn']).optional(),
  /** Time of the request (orders the pending list). */
  askedAt: z.number().optional(),
  /** Deny feedback, up to 4,000 characters. */
  feedback: z.string().optional(),
  /** Who answered: panel, notification, cli... */
  answeredBy: z.string().optional(),
  /** How far the approval reached, and what it remembered (docs/design.md, “Remembered approvals”). */
  scope: ApprovalScopeSchema.optional(),
  remembered: RememberedRuleSchema.optional(),
  withdrawnBecause: ApprovalWithdrawalSchema.optional(),
});

/** The verifier's verdict on a step (docs/design.md, “The verifier and how a step ends”). */
export const ProofVerdictSchema = z.enum(['verified', 'unverified', 'failed']);
export type ProofVerdict = z.infer<typeof ProofVerdictSchema>;

/**
 * One thing the verifier checked, with what it found: a declared postcondition (its kind is the
 * check's leading key), a claim read in the step's answer, or the step's unanswered calls.
 */
export const CheckRecordSchema = z.object({
  kind: z.enum(['pending_calls', 'changed', 'exists', 'absent', 'contains', 'command', 'called', 'answer', 'claim', 'verifier_error']),
  /** The check in one line (`changed test/*.ts`), or the claim's sentence as the answer wrote it. */
  check: z.string(),
  passed: z.boolean(),
  /** What backs (or contradicts) it: a call, a recorded change, the verifier's own command run. */
  evidence: z
    .object({
      callId: z.string().optional(),
      path: z.string().optional(),
      /** The seq of the files_changed event of that change. */
      changeSeq: z.number().int().nonnegative().optional(),
      exitCode: z.number().int().nullable().optional(),
      /** The command's output, capped like a tool result. */
      output: z.string().optional(),
    })
    .optional(),
  /** Why it passed or failed, in words (for a claim: what evidence is missing). */
  detail: z.string(),
});
export type CheckRecord = z.infer<typeof CheckRecordSchema>;

const VerdictSchema = z.object({
  passed: z.boolean(),
  reason: z.string(),
  failedCallIds: z.array(z.string()),
  /** Absent in traces written before steps proved their work. */
  verdict: ProofVerdictSchema.optional(),
  checks: z.array(CheckRecordSchema).optional(),
});

export const ToolCallSnapshotSchema = z.object({
  id: z.string(),
  index: z.number(),
  turn: z.number(),
  name: z.string(),
  requestedName: z.string(),
  nameResolution: NameResolutionSchema,
  /** Arguments as a JSON string (what would run / what ran). */
  arguments: z.string(),
  rawArguments: z.string(),
  isComplete: z.boolean(),
  finishReason: z.string().nullable(),
  status: ToolCallStatusSchema,
  result: z.string().optional(),
  error: z.boolean().optional(),
  /** Why the call never ran or was refused (invalid, unparseable, denied, reused...). */
  reason: z.string().optional(),
  /** The identical earlier call of the same response whose result this one reuses: it did not run. */
  reusedFrom: z.string().optional(),
  /** `text`: the model wrote the call into its text (no tool-call parser on its server) and Cortex read it (“Tool calls written as text”). */
  source: z.literal('text').optional(),
  /** For a command that ran: its exit code (null when a signal stopped it). */
  exitCode: z.number().int().nullable().optional(),
  /** The call's current approval request and what became of it (docs/design.md, “Approvals”). */
  approval: ApprovalStateSchema.optional(),
  /** Earlier requests for this call (a denied required gate asked again), oldest first. */
  earlierApprovals: z.array(ApprovalStateSchema).optional(),
  audit: Audit.optional(),
  requestedAt: z.number(),
  completedAt: z.number().optional(),
  durationMs: z.number().optional(),
});

export const StepSnapshotSchema = z.object({
  id: z.string(),
  description: z.string(),
  /** The step's declared postconditions; absent when the plan declared none. */
  expects: StepExpectsSchema.optional(),
  /** What the step may touch once the plan is approved (docs/design.md, “Step scopes and plan approval”). */
  scope: StepScopeSchema.optional(),
  status: StepStatusSchema,
  dependsOn: z.array(z.string()),
  /** Id of the first step of this lineage; replacements inherit it. */
  lineage: z.string(),
  replanAttempts: z.number(),
  origin: z.enum(['planner', 'replan']),
  /** A redesigned step: why it waits for each of its kept dependencies, in words. */
  waitsFor: z.record(z.string(), z.string()).optional(),
  /** Joined while its redesign streamed: the failed step it redesigns. */
  redesignOf: z.string().optional(),
  output: z.string().optional(),
  /** Files the step's calls changed, in first-change order. */
  files: z.array(z.string()),
  /** What the step's calls changed on disk, in order (docs/design.md, “Checkpoints and revert”). */
  changes: z.array(StepFileChangeSchema).optional(),
  toolCalls: z.array(ToolCallSnapshotSchema),
  verdict: VerdictSchema.optional(),
  /** Why the step ended as it did (e.g. max_steps_exceeded, all_tool_calls_failed, approval_denied). */
  endReason: z.string().optional(),
  /** For blocked steps: the failed or denied step that blocked it. */
  blockedBy: z.string().optional(),
  /** Set when a replan removed this step. */
  replacedBy: z.object({ replanIndex: z.number(), newStepIds: z.array(z.string()) }).optional(),
  startedAt: z.number().optional(),
  finishedAt: z.number().optional(),
  audits: z.array(Audit),
  /** Every LLM request filed under this step (its turns, repairs, compactions, its replan). */
  usage: UsageSchema.optional(),
});

export const ReplanRecordSchema = z.object({
  failedStepId: z.string(),
  replacedStepIds: z.array(z.string()),
  newStepIds: z.array(z.string()),
  attempt: z.number(),
  maxAttempts: z.number(),
  reason: z.string(),
  action: z.enum(['redesign', 'give_up']),
});

/** The step of a finished run that a new run retries (docs/design.md, “Retrying a run”, “Retrying a step”). */
export const RetryOfSchema = z.object({ runId: z.string(), stepId: z.string(), description: z.string() });
export type RetryOf = z.infer<typeof RetryOfSchema>;

export const PlanSnapshotSchema = z.object({
  runId: z.string(),
  task: z.string(),
  title: z.string(),
  status: z.enum(['running', 'completed', 'failed', 'cancelled']),
  steps: z.array(StepSnapshotSchema),
  replacedSteps: z.array(StepSnapshotSchema),
  replans: z.array(ReplanRecordSchema),
  answer: z.string().optional(),
  error: z.string().optional(),
  startedAt: z.number().optional(),
  finishedAt: z.number().optional(),
  usage: UsageSchema,
  /** Plan approvals asked in this run and their answers (docs/design.md, “Step scopes and plan approval”). */
  planApprovals: z.array(PlanApprovalStateSchema).optional(),
  /** The run's warnings and errors (`log` events at warn or error), in order: the panel shows them. */
  notices: z.array(z.object({ level: z.enum(['warn', 'error']), message: z.string(), stepId: z.string().optional(), seq: z.number() })).optional(),
  /** The project's instructions files the run (no stepId) and each step used (docs/design.md, “Project instructions”), from their `log` records. */
  instructions: z.array(z.object({ path: z.string(), bytes: z.number(), stepId: z.string().optional() })).optional(),
  /** Set when this run retries a step of a finished run and carries the rest of it over. */
  retryOf: RetryOfSchema.optional(),
});
export type PlanSnapshot = z.infer<typeof PlanSnapshotSchema>;
export type StepSnapshot = z.infer<typeof StepSnapshotSchema>;

export const RunEventSchema = z.discriminatedUnion('type', [
  z.object({
    ...Base,
    type: z.literal('run_started'),
    runId: z.string(),
    task: z.string(),
    workspace: z.string(),
    model: z.string(),
    baseUrl: z.string(),
    /** A run that retries a step of a finished run: the events after this one carry that run's plan over. */
    retryOf: RetryOfSchema.optional(),
  }),
  z.object({
    ...Base,
    type: z.literal('run_resumed'),
    /** The seq of the last event the interrupted run recorded; the resumed run's events follow it (docs/design.md, “Resuming a run”). */
    fromSeq: z.number().int().nonnegative(),
    /** Steps that were running when the run stopped: back to not_started, to run again from the beginning. */
    restartedStepIds: z.array(z.string()),
    /** The files those steps had changed: reverted, kept (left as they were), or none changed. */
    partialChanges: z.enum(['none', 'reverted', 'kept']).optional(),
  }),
  z.object({
    ...Base,
    type: z.literal('plan_created'),
    title: z.string(),
    /** A streamed plan still being written (docs/design.md, “The planner”); a later plan_created without it says the plan is whole. */
    partial: z.boolean().optional(),
  }),
  z.object({
    ...Base,
    type: z.literal('step_added'),
    stepId: z.string(),
    description: z.string(),
    /** Its postconditions, so a resumed or replayed run checks the same things. */
    expects: StepExpectsSchema.optional(),
    /** What it may touch under an approved plan (docs/design.md, “Step scopes and plan approval”). */
    scope: StepScopeSchema.optional(),
    dependsOn: z.array(z.string()),
    lineage: z.string(),
    replanAttempts: z.number().int().nonnegative(),
    origin: z.enum(['planner', 'replan']),
    /** A redesigned step: why it waits for each of its kept dependencies (docs/design.md, “The replanner”). */
    waitsFor: z.record(z.string(), z.string()).optional(),
    /** A step of a redesign that streams: the failed step it redesigns, still in the plan until the reply is whole (docs/design.md, “The replanner”). */
    redesignOf: z.string().optional(),
  }),
  z.object({
    ...Base,
    type: z.literal('step_status_changed'),
    stepId: z.string(),
    status: StepStatusSchema,
    reason: z.string().optional(),
    blockedBy: z.string().optional(),
  }),
  z.object({ ...Base, type: z.literal('step_output'), stepId: z.string(), output: z.string() }),
  z.object({
    ...Base,
    type: z.literal('step_verified'),
    stepId: z.string(),
    passed: z.boolean(),
    reason: z.string(),
    failedCallIds: z.array(z.string()),
    /** verified, unverified or failed; absent in older traces. */
    verdict: ProofVerdictSchema.optional(),
    /** Every check with its evidence; absent in older traces. */
    checks: z.array(CheckRecordSchema).optional(),
  }),
  z.object({ ...Base, type: z.literal('step_audit'), stepId: z.string(), kind: z.string(), data: Audit }),
  z.object({
    ...Base,
    type: z.literal('tool_call_requested'),
    stepId: z.string(),
    call: ToolCallSnapshotSchema.pick({
      id: true,
      index: true,
      turn: true,
      name: true,
      requestedName: true,
      nameResolution: true,
      arguments: true,
      rawArguments: true,
      isComplete: true,
      finishReason: true,
      reason: true,
      audit: true,
      source: true,
    }),
  }),
  z.object({
    ...Base,
    type: z.literal('tool_call_awaiting_approval'),
    stepId: z.string(),
    callId: z.string(),
    approval: ApprovalRequestSchema,
  }),
  z.object({
    ...Base,
    type: z.literal('approval_answered'),
    stepId: z.string(),
    callId: z.string(),
    requestId: z.string(),
    decision: z.enum(['approve', 'deny']),
    feedback: z.string().optional(),
    source: z.string().optional(),
    /** 'run' or 'workspace': the answer also approves later matching calls; `source: 'remembered'` marks a call such an answer approved. */
    scope: ApprovalScopeSchema.optional(),
    remembered: RememberedRuleSchema.optional(),
  }),
  z.object({
    ...Base,
    type: z.literal('approval_refused'),
    /** As the answer quoted it; the request may not exist. */
    requestId: z.string(),
    stepId: z.string().optional(),
    callId: z.string().optional(),
    reason: ApprovalRefusalSchema,
    /** The refusal in words, as the person who answered is told. */
    message: z.string(),
    source: z.string().optional(),
  }),
  z.object({
    ...Base,
    type: z.literal('approval_withdrawn'),
    stepId: z.string(),
    callId: z.string(),
    requestId: z.string(),
    reason: ApprovalWithdrawalSchema,
    /** Why, in words (e.g. the cancel's reason). */
    message: z.string().optional(),
  }),
  z.object({ ...Base, type: z.literal('plan_approval_requested'), ...PlanApprovalRequestedFields }),
  z.object({ ...Base, type: z.literal('plan_approval_answered'), ...PlanApprovalAnsweredFields }),
  z.object({
    ...Base,
    type: z.literal('tool_call_completed'),
    stepId: z.string(),
    callId: z.string(),
    status: z.enum(['success', 'error', 'rejected']),
    result: z.string(),
    error: z.boolean().optional(),
    reason: z.string().optional(),
    /** Set when the call did not run and reuses the result of this identical earlier call. */
    reusedFrom: z.string().optional(),
    /** For a command that ran: its exit code. */
    exitCode: z.number().int().nullable().optional(),
    durationMs: z.number().optional(),
  }),
  z.object({
    ...Base,
    type: z.literal('subgraph_replaced'),
    replan: ReplanRecordSchema,
  }),
  z.object({
    ...Base,
    type: z.literal('plan_discarded'),
    /** A streamed plan found invalid at its end (docs/design.md, “The planner”): its steps leave the live plan, kept in history. */
    stepIds: z.array(z.string()),
    reason: z.string(),
  }),
  z.object({ ...Base, type: z.literal('files_changed'), ...FilesChangedFields }),
  z.object({ ...Base, type: z.literal('files_reverted'), ...FilesRevertedFields }),
  z.object({
    ...Base,
    type: z.literal('llm_request'),
    purpose: PurposeSchema,
    stepId: z.string().optional(),
    requestedModel: z.string(),
    usedModel: z.string().optional(),
    attempts: z.array(Audit),
    ok: z.boolean(),
    error: z.string().optional(),
    finishReason: z.string().nullable().optional(),
    usage: UsageSchema.optional(),
    /** The model's reasoning text of this turn (`reasoning_content` / `reasoning`), first and last 8,000 characters: kept here, never sent back. */
    reasoning: z.string().optional(),
    durationMs: z.number(),
  }),
  z.object({
    ...Base,
    type: z.literal('log'),
    level: z.enum(['trace', 'debug', 'info', 'warn', 'error']),
    message: z.string(),
    stepId: z.string().optional(),
    data: Audit.optional(),
  }),
  z.object({
    ...Base,
    type: z.literal('run_finished'),
    status: z.enum(['completed', 'failed', 'cancelled']),
    answer: z.string().optional(),
    error: z.string().optional(),
    plan: PlanSnapshotSchema,
  }),
]);

export type RunEvent = z.infer<typeof RunEventSchema>;
export type RunEventType = RunEvent['type'];
type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
/** An event before the log stamps `seq` and `time`. */
export type NewRunEvent = DistributiveOmit<RunEvent, 'seq' | 'time'>;
export type EventOf<T extends RunEventType> = Extract<RunEvent, { type: T }>;
