import type { ChatMessage } from '../llm/llmTypes';
import { updateToolResultEvent } from '../plan/planOperations';
import type { ApprovalOutcome, RememberableParts } from '../policy/approvalBroker';
import { callProtection, type CallProtection } from '../tools/callProtection';
import { policyDeniedMessage, userDeniedMessage } from '../policy/policyMessages';
import { executePreparedCall, type PreparedCall, type RunnableCall } from '../tools/toolPipeline';
import { approvalPreviews } from '../checkpoints/approvalPreview';
import type { GuardedToolContext } from '../tools/fileGuard';
import { executionSettingsFromConfig } from '../sandbox/executionSettings';
import type { CommandToolContext } from '../tools/workspace/runCommand';
import { planBatch, type BatchEntry } from './batchPlan';
import type { RunContext } from './runContext';
import { stepAuditEvent } from '../plan/stepAudits';
import { imageSupport, type ImageSupport } from '../llm/imageSupport';
import { toolImagesMessage, type CallImages, type ImageChannel } from '../tools/toolImages';
import { rememberableParts, type RememberPlace } from './rememberableParts';
import { applyStepScope, recordCommandDrift } from './scopeGate';

// Runs the calls of one model response (docs/design.md, “Running a batch of calls”) in named stages:
//   plan (batchPlan.ts) → open: invalid payloads and policy denials recorded, approvals asked for
//   up front → execute: in index order, read-only calls together in parallel mode, each approval
//   awaited first → close: repeats of read-only or idempotent calls reuse their original's
//   result (recorded with `reusedFrom`, never as a call that ran), the batch audit, one tool
//   message per replayed call.

/** What happened to one call of a batch; `content` is the tool message sent back to the model. */
interface CallResult {
  status: 'success' | 'error' | 'rejected';
  content: string;
  executed: boolean;
  reason?: string;
  /** The id of the identical earlier call whose result this one reuses (it did not run). */
  reusedFrom?: string;
  /** A command's exit code: one that ran and exited non-zero is evidence, not a failed call. */
  exitCode?: number | null;
}

export interface BatchOutcome {
  /**
   * One tool message per replayed call, in index order (never one missing, never an extra), then
   * the user message with the images the calls returned, when the model takes images.
   */
  toolMessages: ChatMessage[];
  executedCount: number;
  failedExecutions: number;
  /** Set when a required approval gate was denied and not retried: the step is blocked. */
  gateDenied?: { callId: string; feedback?: string };
}

type ConfirmEntry = Extract<BatchEntry, { disposition: 'confirm' }>;
type RunEntry = Extract<BatchEntry, { disposition: 'run' | 'confirm' }>;

/** One batch's shared state: the results recorded so far and the approvals asked for. */
interface Batch {
  context: RunContext;
  stepId: string;
  protection: CallProtection;
  results: Map<string, CallResult>;
  approvals: Map<string, Promise<ApprovalOutcome>>;
  gateDenied?: BatchOutcome['gateDenied'];
  /** The diff each write or edit waiting for approval would make, by call id (docs/design.md, “Checkpoints and revert”). */
  previews?: Map<string, string>;
  /** What a remembered answer may cover, by call id; absent for a call no remembered answer may approve (docs/design.md, “Remembered approvals”). */
  rememberable?: Map<string, RememberableParts>;
  /** Whether the model takes images (docs/design.md, “MCP tools”), and the images the calls returned, by call id. */
  imageSupport: ImageSupport;
  images: Map<string, CallImages>;
}

/** The image channel of one call: where its images go, or why the model does not get them. */
function imageChannel(batch: Batch, call: RunnableCall): ImageChannel {
  if (!batch.imageSupport.accepted) return batch.imageSupport;
  return {
    accepted: true,
    attach: (images) => {
      const known = batch.images.get(call.call.id) ?? { callId: call.call.id, toolName: call.name, images: [] };
      known.images.push(...images);
      batch.images.set(call.call.id, known);
    },
  };
}

/** Records a call's result, as an event and for the batch. */
function record(batch: Batch, call: PreparedCall, result: CallResult, durationMs?: number): void {
  const { log } = batch.context;
  batch.results.set(call.call.id, result);
  log.append(
    updateToolResultEvent(log.state, batch.stepId, call.call.id, {
      status: result.status,
      result: result.content,
      error: result.status === 'error' ? true : undefined,
      reason: result.reason,
      reusedFrom: result.reusedFrom,
      exitCode: result.exitCode,
      durationMs,
    }),
  );
}

/** Asks for an approval; the broker records the request and its answer (docs/design.md, “Approvals”). */
function requestApproval(batch: Batch, entry: ConfirmEntry): void {
  const { call, verdict } = entry;
  const { outcome } = batch.context.approvals.request(
    {
      stepId: batch.stepId,
      callId: call.call.id,
      toolName: call.name,
      argumentsJson: call.argumentsJson,
      required: verdict.required,
      denyEffect: verdict.denyEffect,
      reason: verdict.reason,
      diff: batch.previews?.get(call.call.id),
      rememberable: batch.rememberable?.get(call.call.id),
    },
    batch.context.signal,
  );
  batch.approvals.set(call.call.id, outcome);
}

/** Stage 2: what is known before anything runs is recorded; every approval of the batch is asked for. */
function open(batch: Batch, entries: readonly BatchEntry[]): void {
  for (const entry of entries) {
    if (entry.disposition === 'invalid')
      record(batch, entry.call, { status: 'error', content: entry.call.invalidPayload, executed: false, reason: 'invalid_arguments' });
    else if (entry.disposition === 'rejected')
      record(batch, entry.call, {
        status: 'error',
        content: policyDeniedMessage(entry.call.name, entry.verdict.reason),
        executed: false,
        reason: 'policy_denied',
      });
    else if (entry.disposition === 'confirm') requestApproval(batch, entry);
  }
}

/**
 * The approval step of a call that needs one (docs/design.md, “Approvals”): waits for the answer asked for
 * in `open`. A denial is recorded as `rejected`; a denied required gate either ends the step
 * (`gateDenied`) or, when the host holds denied gates, blocks the step until Retry asks again.
 * Who approved it when the call may run (a person, or a remembered answer), else false; a
 * cancelled request leaves the call as it is (it never ran).
 */
async function awaitApproval(batch: Batch, entry: ConfirmEntry): Promise<'person' | 'remembered' | false> {
  const { context, stepId } = batch;
  const { call, verdict } = entry;
  for (;;) {
    const outcome = await batch.approvals.get(call.call.id)!;
    if (outcome.decision === 'cancelled') return false;
    if (outcome.decision === 'approve') return outcome.source === 'remembered' ? 'remembered' : 'person';
    record(batch, call, { status: 'rejected', content: userDeniedMessage(call.name, outcome.feedback), executed: false, reason: 'approval_denied' });
    if (!verdict.required || verdict.denyEffect !== 'block') return false;
    if (!context.holdDeniedGates) {
      batch.gateDenied = { callId: call.call.id, feedback: outcome.feedback };
      return false;
    }
    context.log.append({ type: 'step_status_changed', stepId, status: 'blocked', reason: 'approval_denied' });
    await context.waitForRetry(stepId);
    context.log.append({ type: 'step_status_changed', stepId, status: 'in_progress', reason: 'approval_retried' });
    batch.results.delete(call.call.id);
    requestApproval(batch, entry);
  }
}

/** Runs one call that passed the policy (after its approval, when it needs one) and records the result. */
async function runCall(batch: Batch, entry: RunEntry): Promise<void> {
  const approvedBy = entry.disposition === 'confirm' ? await awaitApproval(batch, entry) : undefined;
  if (approvedBy === false) return;
  const { context, stepId } = batch;
  const { config, log } = context;
  const call: RunnableCall = entry.call;
  const toolContext: GuardedToolContext & CommandToolContext = {
    workspaceRoot: context.workspaceRoot,
    signal: context.signal,
    maxReadFileBytes: config['cortex.limits.maxReadFileBytes'],
    timeoutMs: config['cortex.execution.toolTimeoutSeconds'] * 1000,
    // The tools check the files again right before touching them: only what was approved passes.
    fileGuard: batch.protection.guard(entry.verdict.protectedAccess),
    // run_command: sandbox and environment settings, and whether a person approved this exact call
    // (an auto-approved command is checked on disk once more before it runs).
    commandExecution: executionSettingsFromConfig(config),
    protectedPaths: batch.protection.matcher,
    // A remembered prefix approved the prefix, not these words: the stricter reading applies.
    approvedByPerson: approvedBy === 'person',
    // Even an approved command cannot write the run's own files inside the sandbox (mounted read-only).
    runFiles: context.runFiles,
    // An MCP tool's raw result (binary data elided) goes to the trace beside the call (docs/design.md, “MCP tools”).
    reportRaw: (raw) => log.append(stepAuditEvent(stepId, { kind: 'mcp_result', data: { callId: call.call.id, ...raw } })),
    images: imageChannel(batch, call),
  };
  // Every file change is recorded with the step and call that made it (docs/design.md, “Checkpoints and revert”).
  const outcome = await context.features.checkpoints.record({ stepId, callId: call.call.id, tool: call.tool }, toolContext, (recorded) =>
    executePreparedCall(call, recorded, config['cortex.limits.maxToolOutputBytes']),
  );
  if (context.signal.aborted) return; // cancelled mid-call: the call stays pending
  const isCommand = call.tool.kind === 'command';
  if (isCommand) recordCommandDrift(context, stepId, call.call.id, batch.protection.matcher);
  record(
    batch,
    call,
    outcome.ok
      ? { status: 'success', content: outcome.output, executed: true, ...(isCommand ? { exitCode: 0 } : {}) }
      : outcome.exitCode !== undefined
        ? { status: 'error', content: `Error: ${outcome.output}`, executed: true, reason: 'command_exit', exitCode: outcome.exitCode }
        : { status: 'error', content: `Error: ${outcome.output}`, executed: true, reason: 'tool_failed' },
    outcome.durationMs,
  );
}

/** Stage 3: the calls that passed the policy, in index order; in parallel mode consecutive read-only calls run together. */
async function execute(batch: Batch, entries: readonly BatchEntry[]): Promise<void> {
  const { context } = batch;
  const runnable = entries.filter((e): e is RunEntry => e.disposition === 'run' || e.disposition === 'confirm');
  const parallel = context.config['cortex.execution.toolExecution'] === 'parallel';
  const limit = context.config['cortex.execution.maxToolConcurrency'];
  for (let i = 0; i < runnable.length;) {
    if (context.signal.aborted) break;
    if (parallel && runnable[i].call.tool.readOnly) {
      const group: RunEntry[] = [];
      while (i < runnable.length && runnable[i].call.tool.readOnly) group.push(runnable[i++]);
      for (let g = 0; g < group.length; g += limit) await Promise.all(group.slice(g, g + limit).map((entry) => runCall(batch, entry)));
    } else {
      await runCall(batch, runnable[i++]);
    }
  }
}

/** Stage 4: repeats of read-only or idempotent calls reuse their original's result; the batch audit; one tool message per replayed call. */
function close(batch: Batch, entries: readonly BatchEntry[], calls: readonly PreparedCall[], startedAt: number): BatchOutcome {
  const { context, stepId, results } = batch;
  const { log, config } = context;
  for (const entry of entries) {
    if (entry.disposition !== 'duplicate') continue;
    const first = results.get(entry.original.call.id);
    if (!first) continue;
    record(
      batch,
      entry.call,
      {
        status: first.status,
        content: `Same tool and arguments as call ${entry.original.call.id}, which only reads (or is idempotent): not run again; the result of ${entry.original.call.id}:\n${first.content}`,
        executed: false,
        reason: 'reused',
        reusedFrom: entry.original.call.id,
      },
      0,
    );
  }

  const replayedIds = new Set(entries.map((e) => e.call.call.id));
  const executedResults = entries.map((e) => results.get(e.call.call.id)).filter((r) => r?.executed);
  const completedEvents = log.state.steps.get(stepId)?.toolCalls.filter((tc) => replayedIds.has(tc.id) && tc.durationMs !== undefined) ?? [];
  log.append(
    stepAuditEvent(stepId, {
      kind: 'tool_batch',
      data: {
        toolCalls: calls.length,
        executed: executedResults.length,
        totalMs: Date.now() - startedAt,
        maxCallMs: completedEvents.reduce((max, tc) => Math.max(max, tc.durationMs ?? 0), 0),
        perCallMs: Object.fromEntries(completedEvents.map((tc) => [tc.id, tc.durationMs ?? 0])),
        mode: config['cortex.execution.toolExecution'] === 'parallel' ? 'parallel' : 'sequential',
      },
    }),
  );

  // A call without a result (cancelled) still needs an answer if the conversation continued;
  // it does not continue after a cancel, so an empty slot only happens on abort.
  const toolMessages: ChatMessage[] = entries.map((e) => ({
    role: 'tool',
    tool_call_id: e.call.call.id,
    content: results.get(e.call.call.id)?.content ?? 'Error: the call did not run (cancelled).',
  }));
  // Images ride in a user message after the tool messages: a tool message carries only text.
  const images = toolImagesMessage(entries.map((e) => batch.images.get(e.call.call.id)).filter((c): c is CallImages => c !== undefined));
  if (images) toolMessages.push(images);
  const executed = [...results.values()].filter((r) => r.executed);
  // A command that exited non-zero ran: its exit code is evidence, so it does not count as failed.
  const failedExecutions = executed.filter((r) => r.status === 'error' && r.reason !== 'command_exit').length;
  return { toolMessages, executedCount: executed.length, failedExecutions, gateDenied: batch.gateDenied };
}

/** The rememberable parts of each call that waits for approval (a broker without a memory ignores them). */
async function rememberableCalls(entries: readonly BatchEntry[], place: RememberPlace): Promise<Map<string, RememberableParts>> {
  const found = new Map<string, RememberableParts>();
  for (const entry of entries) {
    if (entry.disposition !== 'confirm') continue;
    const parts = await rememberableParts(entry, place);
    if (parts) found.set(entry.call.call.id, parts);
  }
  return found;
}

/**
 * Runs the calls of one model response: invalid payloads, de-duplication, policy, approvals and
 * execution (sequential by index, or read-only tools concurrently), recording everything as events.
 */
export async function runToolBatch(context: RunContext, stepId: string, calls: PreparedCall[]): Promise<BatchOutcome> {
  const protection = callProtection(context.workspaceRoot, context.config['cortex.policy.protectedPaths'], context.runFiles);
  const { config } = context;
  const batch: Batch = {
    context,
    stepId,
    protection,
    results: new Map(),
    approvals: new Map(),
    imageSupport: imageSupport({
      mode: config['cortex.llm.images'],
      provider: config['cortex.llm.provider'],
      model: config['cortex.llm.model'],
      fallbackModels: config['cortex.llm.fallbackModels'],
    }),
    images: new Map(),
  };
  // Under an approved plan the step's scope decides what asks (docs/design.md, “Step scopes and plan approval”).
  const entries = await applyStepScope(
    context,
    stepId,
    await planBatch(calls, { config: context.config, trusted: context.trusted, protection }),
    protection.matcher,
  );
  // A command may run: the checkpoints' shadow repository is set up now, while approvals are awaited.
  if (entries.some((e) => (e.disposition === 'run' || e.disposition === 'confirm') && e.call.tool.kind === 'command'))
    context.features.checkpoints.prepareCommands();
  batch.previews = await approvalPreviews(
    context.workspaceRoot,
    entries.filter((e): e is ConfirmEntry => e.disposition === 'confirm').map((e) => ({ callId: e.call.call.id, tool: e.call.tool, args: e.call.args })),
    context.config['cortex.limits.maxReadFileBytes'],
    protection.guard(undefined),
  );
  batch.rememberable = await rememberableCalls(entries, { trusted: context.trusted, workspaceRoot: context.workspaceRoot, protectedPaths: protection.matcher });
  open(batch, entries);
  const startedAt = Date.now();
  await execute(batch, entries);
  return close(batch, entries, calls, startedAt);
}
