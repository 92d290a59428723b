import type { StepScope } from './stepScope';
import type { NewRunEvent } from './events';
import { normalizeRelativeDependencies, PlanGraph, PlanInvariantError, type RelativeDependencies } from './planGraph';
import type { NameResolution, PlanState, StepState, Verdict } from './planTypes';
import { redesignOutsideDependencies, type OutsideDependencies } from './redesignDependencies';
import type { StepCheck } from './stepChecks';

// The plan's operations (add steps, record a tool call and its result, end a step, replace a
// subgraph...) as builders of events (docs/design.md, “The plan is event-sourced”). Each checks the change against the
// current state and throws PlanInvariantError with a clear message instead of producing a
// broken plan; the executor appends what they return to the EventLog, so the reducer, the panel
// and the trace see every change.
// Build and append in the same synchronous turn: the checks hold for the state they were run on.

export { PlanInvariantError };

type NewEvent<T extends NewRunEvent['type']> = Extract<NewRunEvent, { type: T }>;

/** Hands out step ids "s1", "s2", ...; an id is never handed out twice in a run. */
export class StepIdAllocator {
  private last: number;

  constructor(
    private readonly prefix = 's',
    start = 0,
  ) {
    this.last = start;
  }

  next(): string {
    return `${this.prefix}${++this.last}`;
  }
}

function liveStep(state: PlanState, stepId: string, action: string): StepState {
  const step = state.steps.get(stepId);
  if (step) return step;
  const why = state.replacedSteps.has(stepId) ? 'it was replaced by a replan' : 'the plan has no such step';
  throw new PlanInvariantError(`cannot ${action} step "${stepId}": ${why}`);
}

// ---- adding steps -------------------------------------------------------------------------

export interface AddStepsInput {
  descriptions: readonly string[];
  /** `{ "<index>": [<index>, ...] }`, 0-based indexes into `descriptions`. */
  dependencies: RelativeDependencies;
  /** Live steps the new steps without dependencies hang off (kept steps). */
  anchorDeps: readonly string[];
  /** Instead of `anchorDeps`: each new step's own kept dependencies, with why (a redesign, see redesignDependencies). */
  outsideDeps?: readonly OutsideDependencies[];
  origin: 'planner' | 'replan';
  /** Lineage of new step `index`; default: its own id (a fresh lineage). */
  lineage?: (index: number, stepId: string) => string;
  replanAttempts?: number;
  /** Each new step's postconditions, by index; undefined where the plan declared none. */
  expects?: ReadonlyArray<readonly StepCheck[] | undefined>;
  /** Each new step's scope, by index; undefined where the plan declared none. */
  scopes?: ReadonlyArray<StepScope | undefined>;
  newId: () => string;
}

/** Ids the new steps get, checked: fresh, unique, never used before in the run. */
function allocateIds(state: PlanState, count: number, newId: () => string): string[] {
  const ids = new Set<string>();
  for (let i = 0; i < count; i++) {
    const id = newId();
    if (typeof id !== 'string' || id === '') throw new PlanInvariantError(`new step ${i} got an empty id`);
    if (state.steps.has(id) || state.replacedSteps.has(id) || ids.has(id)) {
      throw new PlanInvariantError(`step id "${id}" is already used in this run; new steps need new ids`);
    }
    ids.add(id);
  }
  return [...ids];
}

/** Positions in an order where every step comes after its dependencies, otherwise as given. */
function dependencyFirstOrder(deps: number[][]): number[] {
  const state = new Uint8Array(deps.length); // 0 new, 1 on the stack, 2 emitted
  const order: number[] = [];
  for (let root = 0; root < deps.length; root++) {
    if (state[root] === 2) continue;
    const stack: Array<[number, number]> = [[root, 0]];
    state[root] = 1;
    while (stack.length > 0) {
      const top = stack[stack.length - 1];
      const [node, next] = top;
      if (next < deps[node].length) {
        top[1]++;
        const dep = deps[node][next];
        if (state[dep] === 1) throw new PlanInvariantError(`new steps: step ${node} and step ${dep} depend on each other`); // checked earlier; never loop
        if (state[dep] === 0) {
          state[dep] = 1;
          stack.push([dep, 0]);
        }
      } else {
        state[node] = 2;
        order.push(node);
        stack.pop();
      }
    }
  }
  return order;
}

function buildStepAdded(state: PlanState, input: AddStepsInput, leaving: ReadonlySet<string>): { ids: string[]; events: Array<NewEvent<'step_added'>> } {
  const count = input.descriptions.length;
  if (count === 0) throw new PlanInvariantError('a plan change must add at least one step');
  input.descriptions.forEach((d, i) => {
    if (typeof d !== 'string' || d.trim() === '') throw new PlanInvariantError(`new step ${i} has an empty description`);
  });
  const attempts = input.replanAttempts ?? 0;
  if (!Number.isInteger(attempts) || attempts < 0) throw new PlanInvariantError(`replanAttempts must be a non-negative integer, got ${attempts}`);
  const normalized = normalizeRelativeDependencies(count, input.dependencies);
  if ('problem' in normalized) throw new PlanInvariantError(`new steps: ${normalized.problem.message}`);
  const anchors: string[] = [];
  for (const anchor of input.anchorDeps) {
    if (!state.steps.has(anchor)) throw new PlanInvariantError(`new steps cannot depend on "${anchor}": it is not a live step of the plan`);
    if (leaving.has(anchor)) throw new PlanInvariantError(`new steps cannot depend on "${anchor}": that step is being removed`);
    if (!anchors.includes(anchor)) anchors.push(anchor);
  }
  for (const outside of input.outsideDeps ?? [])
    for (const dep of outside.deps) {
      if (!state.steps.has(dep)) throw new PlanInvariantError(`a new step cannot depend on "${dep}": it is not a live step of the plan`);
      if (leaving.has(dep)) throw new PlanInvariantError(`a new step cannot depend on "${dep}": that step is being removed`);
    }
  const ids = allocateIds(state, count, input.newId);
  const dependsOn = (i: number): string[] => {
    const inside = normalized.deps[i].map((j) => ids[j]);
    const outside = input.outsideDeps?.[i];
    if (outside) return [...inside, ...outside.deps];
    return inside.length > 0 ? inside : [...anchors];
  };
  const events = dependencyFirstOrder(normalized.deps).map((i): NewEvent<'step_added'> => {
    const why = input.outsideDeps?.[i]?.why;
    return {
      type: 'step_added',
      stepId: ids[i],
      description: input.descriptions[i].trim(),
      ...(input.expects?.[i] ? { expects: [...input.expects[i]] } : {}),
      ...(input.scopes?.[i] ? { scope: structuredClone(input.scopes[i]) } : {}),
      dependsOn: dependsOn(i),
      lineage: input.lineage?.(i, ids[i]) ?? ids[i],
      replanAttempts: attempts,
      origin: input.origin,
      ...(why && Object.keys(why).length > 0 ? { waitsFor: why } : {}),
    };
  });
  return { ids, events };
}

/**
 * Adds steps: `step_added` events for new steps whose dependencies are relative to the
 * batch; steps without dependencies depend on `anchorDeps`. Emitted dependencies-first (plan
 * order otherwise), so every prefix of the batch is a valid plan.
 */
export function addStepsEvents(state: PlanState, input: AddStepsInput): NewRunEvent[] {
  return buildStepAdded(state, input, new Set()).events;
}

/** The planner's result: `plan_created` and the first steps (fresh lineages, no anchors). */
export function initialPlanEvents(
  state: PlanState,
  plan: {
    title: string;
    steps: readonly string[];
    dependencies: RelativeDependencies;
    expects?: ReadonlyArray<readonly StepCheck[] | undefined>;
    scopes?: ReadonlyArray<StepScope | undefined>;
  },
  newId: () => string,
): NewRunEvent[] {
  if (state.steps.size > 0) throw new PlanInvariantError('the plan already has steps; a new plan can only start an empty run');
  const steps = addStepsEvents(state, {
    descriptions: plan.steps,
    dependencies: plan.dependencies,
    expects: plan.expects,
    scopes: plan.scopes,
    anchorDeps: [],
    origin: 'planner',
    newId,
  });
  return [{ type: 'plan_created', title: plan.title }, ...steps];
}

// ---- running a step -----------------------------------------------------------------------

/** `in_progress` for a not-started step whose dependencies have all completed. */
export function startStepEvent(state: PlanState, stepId: string): NewRunEvent {
  const step = liveStep(state, stepId, 'start');
  if (step.status !== 'not_started') throw new PlanInvariantError(`cannot start step ${stepId}: it is ${step.status}`);
  const waiting = step.dependsOn.filter((dep) => state.steps.get(dep)?.status !== 'completed');
  if (waiting.length > 0) throw new PlanInvariantError(`cannot start step ${stepId}: it still waits on ${waiting.join(', ')}`);
  return { type: 'step_status_changed', stepId, status: 'in_progress' };
}

export interface ToolCallInput {
  id: string;
  name: string;
  /** JSON text, or a value to stringify. */
  arguments: string | Record<string, unknown>;
  index?: number;
  turn?: number;
  requestedName?: string;
  nameResolution?: NameResolution;
  rawArguments?: string;
  isComplete?: boolean;
  finishReason?: string | null;
  reason?: string;
  audit?: Record<string, unknown>;
  /** The model wrote the call into its text. */
  source?: 'text';
}

/** Records a tool call as `pending` before it runs. */
export function addToolCallEvent(state: PlanState, stepId: string, call: ToolCallInput): NewRunEvent {
  const step = liveStep(state, stepId, 'record a tool call for');
  if (step.status !== 'in_progress') throw new PlanInvariantError(`cannot record a tool call for step ${stepId}: it is ${step.status}, not in_progress`);
  if (!call.id) throw new PlanInvariantError(`a tool call of step ${stepId} has no id`);
  if (step.toolCalls.some((c) => c.id === call.id)) throw new PlanInvariantError(`step ${stepId} already has a tool call with id "${call.id}"`);
  const args = typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments);
  const event: NewEvent<'tool_call_requested'> = {
    type: 'tool_call_requested',
    stepId,
    call: {
      id: call.id,
      index: call.index ?? step.toolCalls.length,
      turn: call.turn ?? 0,
      name: call.name,
      requestedName: call.requestedName ?? call.name,
      nameResolution: call.nameResolution ?? 'exact',
      arguments: args,
      rawArguments: call.rawArguments ?? args,
      isComplete: call.isComplete ?? true,
      finishReason: call.finishReason ?? null,
    },
  };
  if (call.reason !== undefined) event.call.reason = call.reason;
  if (call.audit !== undefined) event.call.audit = call.audit;
  if (call.source !== undefined) event.call.source = call.source;
  return event;
}

export interface ToolResultInput {
  status?: 'success' | 'error' | 'rejected';
  result: string;
  error?: boolean;
  reason?: string;
  /** The identical earlier call whose result this one reuses (it did not run). */
  reusedFrom?: string;
  exitCode?: number | null;
  durationMs?: number;
}

/** Answers a pending call with its result (matched by id, not FIFO by name). */
export function updateToolResultEvent(state: PlanState, stepId: string, callId: string, result: ToolResultInput): NewRunEvent {
  const step = liveStep(state, stepId, 'record a tool result for');
  const call = step.toolCalls.find((c) => c.id === callId);
  if (!call) throw new PlanInvariantError(`step ${stepId} has no tool call "${callId}"`);
  if (call.status !== 'pending' && call.status !== 'awaiting_approval') {
    throw new PlanInvariantError(`tool call "${callId}" of step ${stepId} already has a result (${call.status})`);
  }
  const event: NewEvent<'tool_call_completed'> = { type: 'tool_call_completed', stepId, callId, status: result.status ?? 'success', result: result.result };
  if (result.error !== undefined) event.error = result.error;
  if (result.reason !== undefined) event.reason = result.reason;
  if (result.reusedFrom !== undefined) event.reusedFrom = result.reusedFrom;
  if (result.exitCode !== undefined) event.exitCode = result.exitCode;
  if (result.durationMs !== undefined) event.durationMs = result.durationMs;
  return event;
}

/** How a step ends; deciding it is the agent's job (agent/stepJudgement.ts, docs/design.md, “The verifier and how a step ends”). */
export interface StepEndInput {
  /** Recorded first (`step_output`) when the step produced one. */
  output?: string;
  /** The judgement (`step_verified`); absent when the step was cut off without one (cancel, fatal error). */
  verdict?: Verdict;
  status: 'completed' | 'failed' | 'blocked';
  reason?: string;
}

/**
 * The events that end a running step: its output, its verdict, then its status. A step waiting
 * for the Retry of a denied approval (blocked, approval_denied) is still running and can end too.
 * Only a passing verdict completes a step, and a passing verdict always does.
 */
export function endStepEvents(state: PlanState, stepId: string, end: StepEndInput): NewRunEvent[] {
  const step = liveStep(state, stepId, 'end');
  const waitingForRetry = step.status === 'blocked' && step.endReason === 'approval_denied';
  if (step.status !== 'in_progress' && !waitingForRetry) throw new PlanInvariantError(`cannot end step ${stepId}: it is ${step.status}, not in_progress`);
  if ((end.status === 'completed') !== (end.verdict?.passed === true)) {
    throw new PlanInvariantError(
      `cannot end step ${stepId} as ${end.status} with ${end.verdict ? (end.verdict.passed ? 'a passing' : 'a failing') : 'no'} verdict`,
    );
  }
  const events: NewRunEvent[] = [];
  if (end.output !== undefined) events.push({ type: 'step_output', stepId, output: end.output });
  if (end.verdict) {
    const { passed, reason, failedCallIds, verdict, checks } = end.verdict;
    events.push({
      type: 'step_verified',
      stepId,
      passed,
      reason,
      failedCallIds: [...failedCallIds],
      ...(verdict ? { verdict } : {}),
      ...(checks ? { checks: checks.map((check) => ({ ...check })) } : {}),
    });
  }
  const status: NewEvent<'step_status_changed'> = { type: 'step_status_changed', stepId, status: end.status };
  if (end.reason !== undefined) status.reason = end.reason;
  events.push(status);
  return events;
}

// ---- blocking -----------------------------------------------------------------------------

/** Every not-started step downstream of `stepId` becomes `blocked`, blockedBy `stepId`. */
export function blockDownstreamEvents(state: PlanState, stepId: string, reason = 'upstream_blocked'): NewRunEvent[] {
  liveStep(state, stepId, 'block the downstream of');
  return PlanGraph.fromState(state)
    .downstream(stepId)
    .filter((id) => state.steps.get(id)!.status === 'not_started')
    .map((id): NewRunEvent => ({ type: 'step_status_changed', stepId: id, status: 'blocked', reason, blockedBy: stepId }));
}

/** A failed step that will not be replanned: it is blocked, and so is everything downstream of it. */
export function blockStepEvents(state: PlanState, stepId: string, reason: string): NewRunEvent[] {
  const step = liveStep(state, stepId, 'block');
  if (step.status === 'completed') throw new PlanInvariantError(`cannot block step ${stepId}: it already completed`);
  return [{ type: 'step_status_changed', stepId, status: 'blocked', reason }, ...blockDownstreamEvents(state, stepId)];
}

// ---- replanning ---------------------------------------------------------------------------

/** What a failed step may get next: a replan (attempt n of max, over these steps) or nothing. */
export interface ReplanPlan {
  allowed: boolean;
  /** The attempt a replan now would be (1-based; the original execution is attempt 0). */
  attempt: number;
  maxAttempts: number;
  /** The failed step and its downstream, in plan order. */
  stepsToReplan: string[];
}

/**
 * Whether the failed step's lineage has a rewrite left (`cortex.replan.maxAttempts`), and which
 * steps a replan would redesign. Attempts count per lineage: replacements inherit the count.
 */
export function nextReplan(state: PlanState, failedStepId: string, maxAttempts: number): ReplanPlan {
  const step = liveStep(state, failedStepId, 'replan');
  if (step.status !== 'failed') throw new PlanInvariantError(`cannot replan step ${failedStepId}: it is ${step.status}, not failed`);
  const attempt = step.replanAttempts + 1;
  return { allowed: attempt <= maxAttempts, attempt, maxAttempts, stepsToReplan: [failedStepId, ...PlanGraph.fromState(state).downstream(failedStepId)] };
}

/** The failed step's lineage used every rewrite: blocked (reason replan_limit_reached) with its downstream. */
export function replanLimitEvents(state: PlanState, failedStepId: string): NewRunEvent[] {
  const step = liveStep(state, failedStepId, 'block');
  if (step.status !== 'failed') throw new PlanInvariantError(`cannot block step ${failedStepId} for the replan limit: it is ${step.status}, not failed`);
  return blockStepEvents(state, failedStepId, 'replan_limit_reached');
}

/**
 * Kept steps the replaced subgraph depended on: the failed step's dependencies first, then those
 * of the other replaced steps, so replacements keep every ordering the original plan had.
 */
export function subgraphAnchorDeps(state: PlanState, replacedStepIds: readonly string[]): string[] {
  const replaced = new Set(replacedStepIds);
  const anchors: string[] = [];
  for (const id of replacedStepIds) {
    for (const dep of state.steps.get(id)?.dependsOn ?? []) if (!replaced.has(dep) && !anchors.includes(dep)) anchors.push(dep);
  }
  return anchors;
}

interface ReplanCommon {
  failedStepId: string;
  attempt: number;
  maxAttempts: number;
  reason: string;
}

function checkReplanAttempt(state: PlanState, input: ReplanCommon): StepState {
  const failed = liveStep(state, input.failedStepId, 'replan');
  if (failed.status !== 'failed') throw new PlanInvariantError(`cannot replan step ${failed.id}: it is ${failed.status}, not failed`);
  if (input.attempt !== failed.replanAttempts + 1) {
    throw new PlanInvariantError(`replan of step ${failed.id} must be attempt ${failed.replanAttempts + 1}, got ${input.attempt}`);
  }
  if (input.attempt > input.maxAttempts) {
    throw new PlanInvariantError(`step ${failed.id}'s lineage already used ${failed.replanAttempts} of ${input.maxAttempts} rewrites; it must be blocked`);
  }
  return failed;
}

/** Checks that `replacedStepIds` is exactly the failed step plus its downstream; returns them in plan order. */
function checkReplacedSet(state: PlanState, failedStepId: string, replacedStepIds: readonly string[] | undefined): string[] {
  const expected = [failedStepId, ...PlanGraph.fromState(state).downstream(failedStepId)];
  if (replacedStepIds) {
    const given = new Set(replacedStepIds);
    const missing = expected.filter((id) => !given.has(id));
    const extra = [...given].filter((id) => !expected.includes(id));
    if (missing.length > 0) throw new PlanInvariantError(`a replan of ${failedStepId} must also remove its downstream ${missing.join(', ')}`);
    if (extra.length > 0)
      throw new PlanInvariantError(`a replan of ${failedStepId} cannot remove ${extra.join(', ')}: not the failed step or downstream of it`);
  }
  for (const id of expected.slice(1)) {
    const status = state.steps.get(id)!.status;
    if (status !== 'not_started' && status !== 'blocked') {
      throw new PlanInvariantError(`cannot replace step ${id} downstream of ${failedStepId}: it is ${status}`);
    }
  }
  return expected;
}

/**
 * Removes steps, the only way steps leave a plan: one `subgraph_replaced` event that
 * moves the failed step and its downstream to `replacedSteps` (kept in history for the panel).
 */
export function removeStepsEvent(state: PlanState, input: ReplanCommon & { replacedStepIds?: readonly string[]; newStepIds: readonly string[] }): NewRunEvent {
  checkReplanAttempt(state, input);
  const replacedStepIds = checkReplacedSet(state, input.failedStepId, input.replacedStepIds);
  return {
    type: 'subgraph_replaced',
    replan: {
      failedStepId: input.failedStepId,
      replacedStepIds,
      newStepIds: [...input.newStepIds],
      attempt: input.attempt,
      maxAttempts: input.maxAttempts,
      reason: input.reason,
      action: 'redesign',
    },
  };
}

export interface ReplaceSubgraphInput extends ReplanCommon {
  /** Default and only accepted value: the failed step plus its downstream. */
  replacedStepIds?: readonly string[];
  newSteps: readonly string[];
  /** The new steps' postconditions, by index. */
  newExpects?: ReadonlyArray<readonly StepCheck[] | undefined>;
  newScopes?: ReadonlyArray<StepScope | undefined>;
  /** Relative indexes into `newSteps`. */
  newDependencies: RelativeDependencies;
  /**
   * Kept steps every new root depends on (the rule before minimal dependencies, kept for callers
   * that choose the anchors). Without it each new step gets its own (redesignOutsideDependencies).
   */
  anchorDeps?: readonly string[];
  /** Kept steps whose outputs the replan says a new step uses: new step index → step ids. */
  uses?: Readonly<Record<number, readonly string[]>>;
  newId: () => string;
}

/**
 * A redesign: `subgraph_replaced` (the failed subgraph leaves, recorded in plan.replans), then
 * `step_added` for the new steps (lineage and attempt count of the failed step). New steps that
 * hang off an already-blocked kept step are blocked by it at once, since they could never run.
 */
export function replaceSubgraphEvents(state: PlanState, input: ReplaceSubgraphInput): NewRunEvent[] {
  const failed = checkReplanAttempt(state, input);
  const replacedStepIds = checkReplacedSet(state, input.failedStepId, input.replacedStepIds);
  const leaving = new Set(replacedStepIds);
  const internal = normalizeRelativeDependencies(input.newSteps.length, input.newDependencies);
  const outsideDeps =
    input.anchorDeps === undefined && 'deps' in internal
      ? redesignOutsideDependencies(state, { failedStepId: failed.id, replacedStepIds, newSteps: input.newSteps, internal: internal.deps, uses: input.uses })
      : undefined;
  const added = buildStepAdded(
    state,
    {
      descriptions: input.newSteps,
      expects: input.newExpects,
      scopes: input.newScopes,
      dependencies: input.newDependencies,
      anchorDeps: input.anchorDeps ?? [],
      outsideDeps,
      origin: 'replan',
      lineage: () => failed.lineage,
      replanAttempts: input.attempt,
      newId: input.newId,
    },
    leaving,
  );
  const events: NewRunEvent[] = [removeStepsEvent(state, { ...input, replacedStepIds, newStepIds: added.ids }), ...added.events];
  // Propagate an upstream block into the new steps (dependency-first order, so one pass suffices).
  const blockedBy = new Map<string, string>();
  for (const event of added.events) {
    for (const dep of event.dependsOn) {
      const cause = blockedBy.get(dep) ?? (state.steps.get(dep)?.status === 'blocked' ? (state.steps.get(dep)!.blockedBy ?? dep) : undefined);
      if (cause) {
        blockedBy.set(event.stepId, cause);
        break;
      }
    }
  }
  for (const [stepId, cause] of blockedBy)
    events.push({ type: 'step_status_changed', stepId, status: 'blocked', reason: 'upstream_blocked', blockedBy: cause });
  return events;
}

/** The replanner gave up: recorded in plan.replans, the failed step and its downstream are blocked. */
export function giveUpEvents(state: PlanState, input: ReplanCommon): NewRunEvent[] {
  checkReplanAttempt(state, input);
  const record: NewRunEvent = {
    type: 'subgraph_replaced',
    replan: {
      failedStepId: input.failedStepId,
      replacedStepIds: [],
      newStepIds: [],
      attempt: input.attempt,
      maxAttempts: input.maxAttempts,
      reason: input.reason,
      action: 'give_up',
    },
  };
  return [record, ...blockStepEvents(state, input.failedStepId, 'replan_gave_up')];
}

/** A parsed replanner decision (see agent/replanPrompt.ts), independent of its JSON spelling. */
export interface ReplanDecision {
  action: 'redesign' | 'give_up';
  newSteps: readonly string[];
  newExpects?: ReadonlyArray<readonly StepCheck[] | undefined>;
  newScopes?: ReadonlyArray<StepScope | undefined>;
  newDependencies: RelativeDependencies;
  /** Kept steps whose outputs a new step uses, as the replan named them (new step index → ids). */
  uses?: Readonly<Record<number, readonly string[]>>;
  reason?: string;
}

/** Why the replan happened (the verdict), plus the replanner's own words when it gave any. */
export function replanReason(failed: StepState, modelReason: string | undefined): string {
  const why = failed.verdict?.reason ?? failed.endReason ?? 'the step failed';
  return modelReason?.trim() ? `${why} — replanner: ${modelReason.trim()}` : why;
}

/** The events for a replanner decision on `failedStepId`, at its lineage's next attempt. */
export function replanOutcomeEvents(
  state: PlanState,
  input: { failedStepId: string; decision: ReplanDecision; maxAttempts: number; newId: () => string },
): NewRunEvent[] {
  const failed = liveStep(state, input.failedStepId, 'replan');
  const common: ReplanCommon = {
    failedStepId: input.failedStepId,
    attempt: failed.replanAttempts + 1,
    maxAttempts: input.maxAttempts,
    reason: replanReason(failed, input.decision.reason),
  };
  if (input.decision.action === 'give_up') return giveUpEvents(state, common);
  return replaceSubgraphEvents(state, {
    ...common,
    newSteps: input.decision.newSteps,
    newExpects: input.decision.newExpects,
    newScopes: input.decision.newScopes,
    newDependencies: input.decision.newDependencies,
    uses: input.decision.uses,
    newId: input.newId,
  });
}

/** One new step of a redesign that streams; see streamedRedesignStepEvents. */
export interface StreamedRedesignStepInput {
  failedStepId: string;
  /** The failed step and its downstream, leaving the plan once the reply is whole. */
  replacedStepIds: readonly string[];
  stepId: string;
  description: string;
  expects?: readonly StepCheck[];
  scope?: StepScope;
  /** Its dependencies: earlier new steps (already joined) and the kept steps it waits for. */
  dependsOn: readonly string[];
  /** Why it waits for each kept dependency (redesignOutsideDependencies). */
  waitsFor?: Readonly<Record<string, string>>;
}

/**
 * A new step of a redesign joining the plan while the replanner's reply still streams
 * (docs/design.md, “The replanner”): the failed step stays in the plan until the whole reply is
 * checked (then `subgraph_replaced`, removeStepsEvent), so the step carries `redesignOf`, the failed
 * step it redesigns. Same lineage and attempt as a redesign's steps; a step hanging off a blocked
 * step is blocked at once.
 */
export function streamedRedesignStepEvents(state: PlanState, input: StreamedRedesignStepInput): NewRunEvent[] {
  const failed = liveStep(state, input.failedStepId, 'redesign');
  if (failed.status !== 'failed') throw new PlanInvariantError(`cannot redesign step ${failed.id}: it is ${failed.status}, not failed`);
  const [stepId] = allocateIds(state, 1, () => input.stepId);
  if (input.description.trim() === '') throw new PlanInvariantError(`new step ${stepId} has an empty description`);
  const leaving = new Set(input.replacedStepIds);
  for (const dep of input.dependsOn) {
    if (!state.steps.has(dep)) throw new PlanInvariantError(`a new step cannot depend on "${dep}": it is not a live step of the plan`);
    if (leaving.has(dep)) throw new PlanInvariantError(`a new step cannot depend on "${dep}": that step is being removed`);
  }
  const why = input.waitsFor && Object.keys(input.waitsFor).length > 0 ? { ...input.waitsFor } : undefined;
  const events: NewRunEvent[] = [
    {
      type: 'step_added',
      stepId,
      description: input.description.trim(),
      ...(input.expects ? { expects: [...input.expects] } : {}),
      ...(input.scope ? { scope: structuredClone(input.scope) } : {}),
      dependsOn: [...input.dependsOn],
      lineage: failed.lineage,
      replanAttempts: failed.replanAttempts + 1,
      origin: 'replan',
      ...(why ? { waitsFor: why } : {}),
      redesignOf: failed.id,
    },
  ];
  const blocked = input.dependsOn.map((dep) => state.steps.get(dep)!).find((dep) => dep.status === 'blocked');
  if (blocked) events.push({ type: 'step_status_changed', stepId, status: 'blocked', reason: 'upstream_blocked', blockedBy: blocked.blockedBy ?? blocked.id });
  return events;
}
