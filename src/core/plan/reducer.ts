import { foldFilesChanged, foldFilesReverted } from './changeFold';
import { foldRunResumed } from './resumeFold';
import { foldApprovalEvent } from './approvalState';
import { foldPlanApprovalAnswered, foldPlanApprovalRequested } from './planApprovalFold';
import type { RunEvent } from './events';
import type { PlanState, StepState, ToolCallRecord } from './planTypes';

/** A fresh, empty plan state. */
export function createPlanState(runId = '', task = ''): PlanState {
  return {
    runId,
    task,
    title: '',
    status: 'running',
    stepOrder: [],
    steps: new Map(),
    replacedSteps: new Map(),
    replans: [],
    usage: { promptTokens: 0, completionTokens: 0 },
    lastSeq: -1,
    structureVersion: 0,
  };
}

function findCall(step: StepState | undefined, callId: string): ToolCallRecord | undefined {
  if (!step) return undefined;
  for (let i = step.toolCalls.length - 1; i >= 0; i--) if (step.toolCalls[i].id === callId) return step.toolCalls[i];
  return undefined;
}

/**
 * Folds one event into the state, in place, and returns it. The single reducer shared by the host,
 * the CLI and the webview. Events for unknown steps or calls are ignored (never throw) so a replayed
 * or partial trace still renders.
 */
export function applyEvent(state: PlanState, event: RunEvent): PlanState {
  state.lastSeq = event.seq;
  switch (event.type) {
    case 'run_started':
      state.runId = event.runId;
      state.task = event.task;
      state.startedAt = event.time;
      state.status = 'running';
      if (event.retryOf) state.retryOf = { ...event.retryOf };
      break;
    case 'run_resumed':
      foldRunResumed(state, event);
      break;
    case 'plan_created':
      state.title = event.title;
      if (event.partial) state.planPartial = true;
      else delete state.planPartial;
      break;
    case 'step_added':
      if (state.steps.has(event.stepId)) break;
      state.steps.set(event.stepId, {
        id: event.stepId,
        description: event.description,
        ...(event.expects ? { expects: event.expects } : {}),
        ...(event.scope ? { scope: event.scope } : {}),
        status: 'not_started',
        dependsOn: [...event.dependsOn],
        files: [],
        lineage: event.lineage,
        replanAttempts: event.replanAttempts,
        origin: event.origin,
        ...(event.waitsFor ? { waitsFor: { ...event.waitsFor } } : {}),
        ...(event.redesignOf ? { redesignOf: event.redesignOf } : {}),
        toolCalls: [],
        audits: [],
      });
      state.stepOrder.push(event.stepId);
      state.structureVersion++;
      break;
    case 'step_status_changed': {
      const step = state.steps.get(event.stepId);
      if (!step) break;
      step.status = event.status;
      if (event.status === 'in_progress') step.startedAt ??= event.time;
      if (event.status === 'completed' || event.status === 'failed' || event.status === 'blocked') step.finishedAt = event.time;
      if (event.reason !== undefined) step.endReason = event.reason;
      if (event.blockedBy !== undefined) step.blockedBy = event.blockedBy;
      break;
    }
    case 'step_output': {
      const step = state.steps.get(event.stepId);
      if (step) step.output = event.output;
      break;
    }
    case 'step_verified': {
      const step = state.steps.get(event.stepId);
      if (step)
        step.verdict = {
          passed: event.passed,
          reason: event.reason,
          failedCallIds: [...event.failedCallIds],
          ...(event.verdict ? { verdict: event.verdict } : {}),
          ...(event.checks ? { checks: event.checks.map((check) => ({ ...check })) } : {}),
        };
      break;
    }
    case 'step_audit': {
      const step = state.steps.get(event.stepId);
      if (step) step.audits.push({ kind: event.kind, seq: event.seq, ...event.data });
      break;
    }
    case 'tool_call_requested': {
      const step = state.steps.get(event.stepId);
      if (!step || findCall(step, event.call.id)) break;
      step.toolCalls.push({ ...event.call, status: 'pending', requestedAt: event.time });
      break;
    }
    case 'tool_call_awaiting_approval':
    case 'approval_answered':
    case 'approval_withdrawn':
      foldApprovalEvent(state, event);
      break;
    case 'plan_approval_requested':
      foldPlanApprovalRequested(state, event);
      break;
    case 'plan_approval_answered':
      foldPlanApprovalAnswered(state, event);
      break;
    case 'approval_refused':
      // A refused answer changed nothing; the trace keeps it so the refusal can be explained.
      break;
    case 'tool_call_completed': {
      const call = findCall(state.steps.get(event.stepId), event.callId);
      if (!call) break;
      call.status = event.status;
      call.result = event.result;
      if (event.error !== undefined) call.error = event.error;
      if (event.reason !== undefined) call.reason = event.reason;
      if (event.reusedFrom !== undefined) call.reusedFrom = event.reusedFrom;
      if (event.exitCode !== undefined) call.exitCode = event.exitCode;
      call.completedAt = event.time;
      call.durationMs = event.durationMs ?? event.time - call.requestedAt;
      break;
    }
    case 'subgraph_replaced': {
      const replan = { ...event.replan };
      const replanIndex = state.replans.length;
      state.replans.push(replan);
      if (replan.action !== 'redesign') break;
      const removed = new Set(replan.replacedStepIds);
      for (const id of removed) {
        const step = state.steps.get(id);
        if (!step) continue;
        step.replacedBy = { replanIndex, newStepIds: [...replan.newStepIds] };
        state.steps.delete(id);
        state.replacedSteps.set(id, step);
      }
      state.stepOrder = state.stepOrder.filter((id) => !removed.has(id));
      state.structureVersion++;
      break;
    }
    case 'plan_discarded': {
      // Like a replan's replaced steps: out of the live plan, still shown in history.
      const removed = new Set(event.stepIds.filter((id) => state.steps.has(id)));
      for (const id of removed) {
        const step = state.steps.get(id)!;
        step.endReason = 'plan_discarded';
        state.steps.delete(id);
        state.replacedSteps.set(id, step);
      }
      state.stepOrder = state.stepOrder.filter((id) => !removed.has(id));
      state.structureVersion++;
      break;
    }
    case 'files_changed':
      foldFilesChanged(state, event);
      break;
    case 'files_reverted':
      foldFilesReverted(state, event);
      break;
    case 'llm_request': {
      // Retries, failovers and errors of a step's requests belong to its audit trail (details pane).
      const step = event.stepId === undefined ? undefined : state.steps.get(event.stepId);
      if (event.usage) {
        addUsage(state.usage, event.usage);
        if (step) addUsage((step.usage ??= { promptTokens: 0, completionTokens: 0 }), event.usage);
      }
      const failedOver = event.usedModel !== undefined && event.usedModel !== event.requestedModel;
      if (step && (!event.ok || failedOver || event.attempts.length > 1)) {
        step.audits.push({
          kind: !event.ok ? 'llm_error' : failedOver ? 'llm_failover' : 'llm_retry',
          seq: event.seq,
          purpose: event.purpose,
          requestedModel: event.requestedModel,
          usedModel: event.usedModel,
          attempts: event.attempts,
          error: event.error,
          durationMs: event.durationMs,
        });
      }
      break;
    }
    case 'log':
      if (event.level === 'warn' || event.level === 'error')
        (state.notices ??= []).push({ level: event.level, message: event.message, stepId: event.stepId, seq: event.seq });
      foldInstructions(state, event);
      break;
    case 'run_finished':
      state.status = event.status;
      state.answer = event.answer;
      state.error = event.error;
      state.finishedAt = event.time;
      break;
  }
  return state;
}

/** Adds one request's usage to a total; optional parts appear only once some request had them. */
function addUsage(total: NonNullable<StepState['usage']>, usage: NonNullable<StepState['usage']>): void {
  total.promptTokens += usage.promptTokens;
  total.completionTokens += usage.completionTokens;
  if (usage.cachedPromptTokens !== undefined) total.cachedPromptTokens = (total.cachedPromptTokens ?? 0) + usage.cachedPromptTokens;
  if (usage.cost !== undefined) total.cost = (total.cost ?? 0) + usage.cost;
  if (usage.estimated) total.estimated = true;
}

/** Folds a whole event list (a trace, a resync) into a new state. */
export function foldEvents(events: Iterable<RunEvent>): PlanState {
  const state = createPlanState();
  for (const event of events) applyEvent(state, event);
  return state;
}

/**
 * The `log` record of the project's instructions files a run or a step used (docs/design.md,
 * “Project instructions”): plain data the panel lists. A trace is untrusted, so only well-formed
 * entries are kept.
 */
function foldInstructions(state: PlanState, event: Extract<RunEvent, { type: 'log' }>): void {
  const data = event.data as { kind?: unknown; files?: unknown } | undefined;
  if (data?.kind !== 'project_instructions' || !Array.isArray(data.files)) return;
  for (const file of data.files as Array<{ path?: unknown; bytes?: unknown }>) {
    if (typeof file?.path !== 'string' || typeof file.bytes !== 'number') continue;
    (state.instructions ??= []).push({ path: file.path, bytes: file.bytes, ...(event.stepId ? { stepId: event.stepId } : {}) });
  }
}
