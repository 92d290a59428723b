import type { ChatMessage } from '../llm/llmTypes';
import { decideToolPolicy, type PolicyVerdict } from '../policy/toolPolicy';
import type { ApprovalOutcome } from '../policy/approvalBroker';
import { callProtection } from '../policy/callProtection';
import { policyDeniedMessage, userDeniedMessage } from '../policy/policyMessages';
import { executePreparedCall, type InvalidCall, type PreparedCall, type RunnableCall } from '../tools/toolPipeline';
import type { GuardedToolContext } from '../tools/workspace/fileGuard';
import type { RunContext } from './runContext';

/** What happened to one call of a batch; `content` is the tool message sent back to the model. */
interface CallResult {
  status: 'success' | 'error' | 'rejected';
  content: string;
  executed: boolean;
  reason?: string;
}

export interface BatchOutcome {
  /** One tool message per replayed call, in index order (never one missing, never an extra). */
  toolMessages: ChatMessage[];
  executedCount: number;
  failedExecutions: number;
  /** Set when a required approval gate was denied and not retried: the step is blocked. */
  gateDenied?: { callId: string; feedback?: string };
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

/** Identity of a call for de-duplication within a batch (docs/design.md §10): name + canonical args. */
export function dedupeKey(call: RunnableCall): string {
  return `${call.name}\u0000${canonicalJson(call.args)}`;
}

/**
 * Runs the calls of one model response: invalid fallbacks, de-duplication, policy, approvals and
 * execution (sequential by index, or read-only tools concurrently), recording every step as events.
 */
export async function runToolBatch(context: RunContext, stepId: string, calls: PreparedCall[]): Promise<BatchOutcome> {
  const { log, config } = context;
  const results = new Map<string, CallResult>();
  const replayed = calls.filter((c): c is RunnableCall | InvalidCall => c.disposition !== 'unparseable');
  const firstByKey = new Map<string, RunnableCall>();
  const duplicates = new Map<string, RunnableCall>();
  const verdicts = new Map<string, PolicyVerdict>();
  const approvals = new Map<string, Promise<ApprovalOutcome>>();
  const protection = callProtection(context.workspaceRoot, config['cortex.policy.protectedPaths']);

  const complete = (call: PreparedCall, result: CallResult, durationMs?: number) => {
    results.set(call.call.id, result);
    log.append({
      type: 'tool_call_completed',
      stepId,
      callId: call.call.id,
      status: result.status,
      result: result.content,
      error: result.status === 'error' ? true : undefined,
      reason: result.reason,
      durationMs,
    });
  };

  // The broker records the request (`tool_call_awaiting_approval`) and its answer (docs/design.md §13).
  const requestApproval = (call: PreparedCall, verdict: PolicyVerdict) => {
    const { outcome } = context.approvals.request(
      {
        stepId,
        callId: call.call.id,
        toolName: call.name,
        argumentsJson: call.argumentsJson,
        required: verdict.required,
        denyEffect: verdict.denyEffect,
        reason: verdict.reason,
      },
      context.signal,
    );
    approvals.set(call.call.id, outcome);
  };

  // 1. Cheap, ordered decisions: invalid payloads, duplicates, policy; approvals are all asked at once.
  for (const call of replayed) {
    if (call.disposition === 'invalid') {
      complete(call, { status: 'error', content: call.invalidPayload, executed: false, reason: 'invalid_arguments' });
      continue;
    }
    const key = dedupeKey(call);
    const first = firstByKey.get(key);
    if (first) {
      duplicates.set(call.call.id, first);
      continue;
    }
    firstByKey.set(key, call);
    const protectedAccess = await protection.find(call.tool, call.args);
    const verdict = decideToolPolicy({ toolName: call.name, tool: call.tool, args: call.args, config, trusted: context.trusted, protectedAccess });
    verdicts.set(call.call.id, verdict);
    if (verdict.decision === 'deny') {
      complete(call, { status: 'error', content: policyDeniedMessage(call.name, verdict.reason), executed: false, reason: 'policy_denied' });
    } else if (verdict.decision === 'confirm') {
      requestApproval(call, verdict);
    }
  }

  let gateDenied: BatchOutcome['gateDenied'];
  const runOne = async (call: RunnableCall): Promise<void> => {
    if (results.has(call.call.id) || duplicates.has(call.call.id)) return;
    let approved = approvals.get(call.call.id);
    while (approved) {
      const outcome = await approved;
      approved = undefined;
      if (outcome.decision === 'cancelled') return; // stays awaiting/pending: it never ran
      if (outcome.decision === 'deny') {
        const verdict = verdicts.get(call.call.id)!;
        complete(call, { status: 'rejected', content: userDeniedMessage(call.name, outcome.feedback), executed: false, reason: 'approval_denied' });
        if (verdict.required && verdict.denyEffect === 'block') {
          if (!context.holdDeniedGates) {
            gateDenied = { callId: call.call.id, feedback: outcome.feedback };
            return;
          }
          log.append({ type: 'step_status_changed', stepId, status: 'blocked', reason: 'approval_denied' });
          await context.waitForRetry(stepId);
          log.append({ type: 'step_status_changed', stepId, status: 'in_progress', reason: 'approval_retried' });
          results.delete(call.call.id);
          requestApproval(call, verdict);
          approved = approvals.get(call.call.id);
        }
        continue;
      }
    }
    if (results.has(call.call.id)) return;
    const toolContext: GuardedToolContext = {
      workspaceRoot: context.workspaceRoot,
      signal: context.signal,
      maxReadFileBytes: config['cortex.limits.maxReadFileBytes'],
      timeoutMs: config['cortex.execution.toolTimeoutSeconds'] * 1000,
      // The tools check the files again right before touching them: only what was approved passes.
      fileGuard: protection.guard(verdicts.get(call.call.id)?.protectedAccess),
      // An MCP tool's raw result (binary data elided) goes to the trace beside the call (docs/design.md §21).
      reportRaw: (raw) => log.append({ type: 'step_audit', stepId, kind: 'mcp_result', data: { callId: call.call.id, ...raw } }),
    };
    const outcome = await executePreparedCall(call, toolContext, config['cortex.limits.maxToolOutputBytes']);
    if (context.signal.aborted) return; // cancelled mid-call: the call stays pending
    complete(call, outcome.ok ? { status: 'success', content: outcome.output, executed: true } : { status: 'error', content: `Error: ${outcome.output}`, executed: true, reason: 'tool_failed' }, outcome.durationMs);
  };

  // 2. Execution: in index order; in parallel mode consecutive read-only calls run together.
  const runnable = replayed.filter((c): c is RunnableCall => c.disposition === 'run' && !results.has(c.call.id) && !duplicates.has(c.call.id));
  const parallel = config['cortex.execution.toolExecution'] === 'parallel';
  const limit = config['cortex.execution.maxToolConcurrency'];
  const batchStarted = Date.now();
  for (let i = 0; i < runnable.length; ) {
    if (context.signal.aborted) break;
    if (parallel && runnable[i].tool.readOnly) {
      const group: RunnableCall[] = [];
      while (i < runnable.length && runnable[i].tool.readOnly) group.push(runnable[i++]);
      for (let g = 0; g < group.length; g += limit) await Promise.all(group.slice(g, g + limit).map(runOne));
    } else {
      await runOne(runnable[i++]);
    }
  }

  // 3. Duplicates get their own message quoting the original's result.
  for (const [dupId, original] of duplicates) {
    const first = results.get(original.call.id);
    const dup = replayed.find((c) => c.call.id === dupId)!;
    if (!first) continue;
    complete(dup, { status: first.status, content: `Duplicate of call ${original.call.id} (same tool and arguments); it ran once. Its result:\n${first.content}`, executed: false, reason: 'duplicate' });
  }

  const executedResults = replayed.map((c) => results.get(c.call.id)).filter((r) => r?.executed);
  const completedEvents = log.state.steps.get(stepId)?.toolCalls.filter((tc) => replayed.some((c) => c.call.id === tc.id) && tc.durationMs !== undefined) ?? [];
  log.append({
    type: 'step_audit',
    stepId,
    kind: 'tool_batch',
    data: {
      toolCalls: calls.length,
      executed: executedResults.length,
      totalMs: Date.now() - batchStarted,
      maxCallMs: completedEvents.reduce((max, tc) => Math.max(max, tc.durationMs ?? 0), 0),
      perCallMs: Object.fromEntries(completedEvents.map((tc) => [tc.id, tc.durationMs ?? 0])),
      mode: parallel ? 'parallel' : 'sequential',
    },
  });

  const toolMessages: ChatMessage[] = [];
  for (const call of replayed) {
    const result = results.get(call.call.id);
    // A call without a result (cancelled) still needs an answer if the conversation continued;
    // it does not continue after a cancel, so an empty slot only happens on abort.
    toolMessages.push({ role: 'tool', tool_call_id: call.call.id, content: result?.content ?? 'Error: the call did not run (cancelled).' });
  }
  const executed = [...results.values()].filter((r) => r.executed);
  return {
    toolMessages,
    executedCount: executed.length,
    failedExecutions: executed.filter((r) => r.status === 'error').length,
    gateDenied,
  };
}
