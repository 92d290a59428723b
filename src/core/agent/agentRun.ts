import { sandboxNotice } from '../sandbox/sandboxChoice';
import { executionSettingsFromConfig } from '../sandbox/executionSettings';
import { randomBytes } from 'node:crypto';
import type { FlatConfig } from '../config/configSchema';
import { clientOptionsFromSettings } from '../llm/clientSettings';
import { createOpenAiClient } from '../llm/openAiClient';
import { LlmError, type LlmClient } from '../llm/llmTypes';
import { runFailureSummary } from '../plan/failureText';
import type { NewRunEvent, PlanSnapshot, RetryOf } from '../plan/events';
import type { McpSession } from '../mcp/mcpSession';
import type { McpServerDefinition } from '../config/mcpTypes';
import { startRunMcp } from '../mcp/runMcp';
import type { EventLog } from '../plan/eventLog';
import { initialPlanEvents, startStepEvent, StepIdAllocator } from '../plan/planOperations';
import { toSnapshot } from '../plan/snapshot';
import { highestStepNumber } from '../resume/resumePoint';
import type { ApprovalBroker } from '../policy/approvalBroker';
import { silentLogger, type Logger } from '../ports';
import { createBuiltinRegistry } from '../tools/workspace/builtinTools';
import { BUDGET_EXCEEDED, RunCaps } from '../usage/runCaps';
import { aggregate } from './aggregator';
import { isFatalLlmError } from './llmCall';
import { planTask } from './planner';
import { ChangeSignal } from './changeSignal';
import { discardStreamedSteps, StreamedPlanner, type PlanGrowth } from './planStream';
import { approvedPlan } from './planApproval';
import type { ParsedPlan } from './planParsing';
import { ReadyQueue } from './readyQueue';
import { replanFailedStep } from './replanner';
import type { RunContext } from './runContext';
import { createRunFeatures } from './runFeatures';
import { executeStep } from './stepExecutor';
import type { StepProof } from './verifier';
import { stepEndEvents, type StepEnd } from './stepJudgement';
import { collectStepProof } from './stepProof';

export interface AgentRunOptions {
  task: string;
  workspaceRoot: string;
  config: FlatConfig;
  apiKey?: string;
  log: EventLog;
  approvals: ApprovalBroker;
  /** False in an untrusted workspace: only read-only tools are offered and allowed. */
  trusted: boolean;
  logger?: Logger;
  runId?: string;
  /** Defaults to the OpenAI-compatible client built from the settings. */
  llm?: LlmClient;
  /** The extension keeps a denied required gate open for Retry; the CLI ends the step. */
  holdDeniedGates?: boolean;
  /** Largest plan accepted from the planner (default 100; the benchmarks raise it). */
  maxPlanSteps?: number;
  /** A plan to run as it is, without calling the planner (a plan file, checked like a planner reply). */
  plan?: ParsedPlan;
  /** The workspace's memory file (outside the repository); without one there are no memory tools. */
  memoryFile?: string;
  /** MCP servers to start for this run (already allowed by the person where needed, variables substituted). */
  mcpServers?: readonly McpServerDefinition[];
  /** Why configured servers were not passed (not allowed, an input not given…): warnings in the trace. */
  mcpNotices?: readonly string[];
  /** The environment MCP servers get their allowlisted variables from (default process.env). */
  processEnv?: NodeJS.ProcessEnv;
  /**
   * The run's checkpoint folder, outside the workspace: every file change is recorded there so it
   * can be reviewed and reverted (docs/design.md, “Checkpoints and revert”). Without one nothing is recorded.
   */
  checkpointsDir?: string;
  /**
   * Files the host writes during the run (its trace and lock), never taken for the run's changes;
   * with the checkpoint folder, protected paths for the run's own tools when inside the workspace.
   */
  checkpointsExclude?: readonly string[];
  /** A retry's new step ids continue after the highest `s<n>` its old run used (docs/design.md, “Retrying a step”). */
  stepNumbersUsed?: number;
}

/** A run that retries a step of a finished run (docs/design.md, “Retrying a step”): the old plan's events follow run_started. */
export interface RetryStart {
  retryOf: RetryOf;
  carry: readonly NewRunEvent[];
}

/** How a resumed run continues (docs/design.md, “Resuming a run”); `run_resumed` records it. */
export interface ResumeStart {
  fromSeq: number;
  restartedStepIds: readonly string[];
  /** Failed steps whose replan was under way when the run stopped. */
  replanStepIds: readonly string[];
  partialChanges?: 'none' | 'reverted' | 'kept';
}

export interface RunResult {
  status: 'completed' | 'failed' | 'cancelled';
  answer?: string;
  error?: string;
  snapshot: PlanSnapshot;
}

class RunCancelled extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'RunCancelled';
  }
}

export function newRunId(now = new Date()): string {
  const stamp = now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  return `run-${stamp}-${randomBytes(3).toString('hex')}`;
}

/**
 * One agent run: plan → schedule ready steps (critical path first, up to maxParallelSteps) →
 * execute → verify → replan failed subgraphs → aggregate. Everything it does is an event in the
 * run's EventLog, which ends with exactly one `run_finished`.
 */
export class AgentRun {
  readonly runId: string;
  private readonly abort = new AbortController();
  private readonly retryWaiters = new Map<string, { resolve: () => void; reject: (e: unknown) => void }>();
  private readonly context: RunContext;
  /** Continues after the ids of a resumed run's recorded steps. */
  private readonly ids: StepIdAllocator;
  private fatalError: string | undefined;
  /** Set once the run went past cortex.limits.maxRunTokens or maxRunCost (docs/design.md, “Usage and cost”). */
  private budgetError: string | undefined;
  private readonly caps: RunCaps;
  private started = false;
  private mcp: McpSession | undefined;
  /** Steps running now, and how to cancel each alone (a discarded streamed plan cancels its steps). */
  private readonly running = new Map<string, Promise<void>>();
  private readonly stepAborts = new Map<string, AbortController>();
  /** Steps being discarded (a streamed plan or redesign found wrong): never started again. */
  private readonly withdrawn = new Set<string>();
  /** Steps joined a streaming redesign: the scheduler looks again. */
  private readonly redesignGrew = new ChangeSignal();
  /** What a streamed redesign needs from the run (docs/design.md, “The replanner”). */
  private readonly replanStream = {
    cancelSteps: (stepIds: readonly string[], reason: string) => this.cancelSteps(stepIds, reason),
    stepsAdded: () => this.redesignGrew.notify(),
  };
  /** What must be said before the first step starts (the sandbox notice). */
  private beforeSteps: Promise<void> | undefined;

  constructor(private readonly options: AgentRunOptions) {
    this.runId = options.runId ?? newRunId();
    this.ids = new StepIdAllocator('s', Math.max(highestStepNumber(options.log.state), options.stepNumbersUsed ?? 0));
    const { config } = options;
    let batch = 0;
    this.caps = new RunCaps(config);
    const features = createRunFeatures(options);
    this.context = {
      runId: this.runId,
      task: options.task,
      workspaceRoot: options.workspaceRoot,
      config,
      llm: options.llm ?? createOpenAiClient({ ...clientOptionsFromSettings(config), apiKey: options.apiKey, logger: options.logger }),
      log: options.log,
      approvals: options.approvals,
      registry: createBuiltinRegistry(config, { trusted: options.trusted, extra: [...features.memory.tools] }),
      trusted: options.trusted,
      logger: options.logger ?? silentLogger,
      signal: this.abort.signal,
      nextBatch: () => batch++,
      holdDeniedGates: options.holdDeniedGates ?? false,
      waitForRetry: (stepId) =>
        new Promise<void>((resolve, reject) => {
          const reason: unknown = this.abort.signal.reason;
          if (this.abort.signal.aborted) return reject(reason instanceof Error ? reason : new Error(String(reason)));
          this.retryWaiters.set(stepId, { resolve, reject });
        }),
      runFiles: [...(options.checkpointsDir ? [options.checkpointsDir] : []), ...(options.checkpointsExclude ?? [])],
      overBudget: () => (this.budgetError ??= this.caps.exceeded(options.log.state.usage)),
      features,
    };
    this.abort.signal.addEventListener('abort', () => {
      for (const waiter of this.retryWaiters.values()) waiter.reject(this.abort.signal.reason);
      this.retryWaiters.clear();
      options.approvals.cancelAll(errorMessage(this.abort.signal.reason));
    });
    // Every approval of this run is an event in its log (docs/design.md, “Approvals”).
    options.approvals.bind(options.log);
  }

  get signal(): AbortSignal {
    return this.abort.signal;
  }

  /** Cancels promptly: in-flight requests aborted, running tools killed, approvals withdrawn. */
  cancel(reason = 'cancelled by the user'): void {
    if (!this.abort.signal.aborted) this.abort.abort(new RunCancelled(reason));
  }

  /** Asks again for a denied required approval of `stepId` (docs/design.md, “Approvals”). */
  retryStep(stepId: string): { accepted: boolean; reason?: string } {
    const waiter = this.retryWaiters.get(stepId);
    if (!waiter) return { accepted: false, reason: `step ${stepId} is not waiting for a retry` };
    this.retryWaiters.delete(stepId);
    waiter.resolve();
    return { accepted: true };
  }

  /** Starts the run; a retry (`retry`) starts from the plan it carries over instead of asking the planner. */
  async start(retry?: RetryStart): Promise<RunResult> {
    if (this.started) throw new Error('a run can only be started once');
    this.started = true;
    const { log, config } = this.context;
    log.append({
      type: 'run_started',
      runId: this.runId,
      task: this.options.task,
      workspace: this.options.workspaceRoot,
      model: config['cortex.llm.model'],
      baseUrl: config['cortex.llm.baseUrl'],
      ...(retry ? { retryOf: retry.retryOf } : {}),
    });
    for (const event of retry?.carry ?? []) log.append(event);
    const unpriced = this.caps.unpricedWarning(config);
    if (unpriced) log.append({ type: 'log', level: 'warn', message: unpriced });
    // Said once per run, before any step runs: commands run unsandboxed, or will be refused
    // (docs/design.md, “Command rules”). The probe (one start of bubblewrap) runs while the planner
    // thinks: started a turn of the event loop later, so its process start does not delay the
    // planner's request.
    const sandboxSaid = this.options.trusted
      ? new Promise<void>((resolve) => setImmediate(resolve)).then(() => sandboxNotice(executionSettingsFromConfig(config))).catch(() => undefined)
      : undefined;
    // The checkpoint folder is set up while the planner thinks (the shadow repository for commands
    // waits for the first command: checkpointRecorder.ts).
    this.context.features.checkpoints.prepare();
    try {
      await this.context.features.instructions.read();
      await this.startMcpServers();
      // The notice is said before the first step starts (a streamed plan starts steps while it is written).
      this.beforeSteps = sandboxSaid?.then((notice) => {
        if (notice) log.append({ type: 'log', level: 'warn', message: notice });
      });
      // A retried step's run carries its plan over from the old run: nothing is planned again.
      if (retry) await this.schedule();
      else await this.planAndSchedule();
    } catch (error) {
      if (!(error instanceof RunCancelled) && !this.abort.signal.aborted) this.fatalError ??= errorMessage(error);
    }
    return this.finish();
  }

  /**
   * Continues an interrupted run whose recorded events are already in the log (docs/design.md, “Resuming a run”):
   * records `run_resumed` (its running steps go back to not_started), plans if the plan was never
   * made, replans the failed steps whose replan was under way, then schedules as `start` does.
   * Completed steps are not run again.
   */
  async resume(resumed: ResumeStart): Promise<RunResult> {
    if (this.started) throw new Error('a run can only be started once');
    this.started = true;
    const { log } = this.context;
    log.append({
      type: 'run_resumed',
      fromSeq: resumed.fromSeq,
      restartedStepIds: [...resumed.restartedStepIds],
      ...(resumed.partialChanges ? { partialChanges: resumed.partialChanges } : {}),
    });
    try {
      await this.context.features.instructions.read();
      await this.startMcpServers();
      if (log.state.steps.size === 0 && log.state.replacedSteps.size === 0) await this.planAndSchedule();
      else if (log.state.planPartial) {
        // Stopped while the plan streamed: the rest of it is lost, so the steps it had go and the run plans again.
        await discardStreamedSteps(this.context, [...log.state.stepOrder], 'the run stopped before the plan had finished streaming; it plans again');
        await this.planAndSchedule();
      } else {
        for (const stepId of resumed.replanStepIds) {
          if (this.abort.signal.aborted || this.context.overBudget()) break;
          await this.replanStep(stepId, (id) => replanFailedStep(this.context, id, this.ids, this.replanStream));
        }
        await this.schedule();
      }
    } catch (error) {
      if (!(error instanceof RunCancelled) && !this.abort.signal.aborted) this.fatalError ??= errorMessage(error);
    }
    return this.finish();
  }

  /**
   * Plans, then schedules; with cortex.planning.stream the plan is streamed and the scheduler runs
   * while it grows (docs/design.md, “The planner”).
   */
  private async planAndSchedule(): Promise<void> {
    const { config } = this.context;
    // A plan given whole (cortex run --plan), a plan a person approves before anything runs, or an
    // endpoint that cannot stream: the plan is complete before the first step starts.
    if (!config['cortex.planning.stream'] || this.options.plan || config['cortex.approval.mode'] === 'plan') {
      await this.plan();
      return this.schedule();
    }
    const planner = new StreamedPlanner(this.context, this.ids, { cancelSteps: (ids, reason) => this.cancelSteps(ids, reason) }, this.options.maxPlanSteps);
    const planning = planner.run();
    // A failed plan ends the run as a fatal error does: the scheduler stops and running steps are cancelled.
    const failed = planning.then(
      () => undefined,
      (error: unknown) => {
        if (!this.abort.signal.aborted) {
          this.fatalError ??= errorMessage(error);
          this.abort.abort(new RunCancelled(this.fatalError));
        }
      },
    );
    await this.schedule(planner);
    await failed;
  }

  /**
   * Cancels these steps where they run (their calls stopped, approvals withdrawn) and waits for them
   * to end. A step that already failed and waits for its replan is not waited for: the replan waits
   * for the plan to be final, and is skipped once the step has left the plan.
   */
  private async cancelSteps(stepIds: readonly string[], reason: string): Promise<void> {
    const ending: Array<Promise<void>> = [];
    // Before anything is awaited: a step that becomes ready while the others end is not started.
    for (const id of stepIds) this.withdrawn.add(id);
    for (const id of stepIds) {
      const task = this.running.get(id);
      if (!task) continue;
      this.stepAborts.get(id)?.abort(new RunCancelled(reason));
      this.options.approvals.withdrawStep(id, reason);
      // A denied gate held for Retry (the extension) ends too.
      this.retryWaiters.get(id)?.reject(new RunCancelled(reason));
      this.retryWaiters.delete(id);
      if (this.context.log.state.steps.get(id)?.status !== 'failed') ending.push(task);
    }
    await Promise.allSettled(ending);
  }

  /**
   * The planner's checked plan for the task, and nothing run (`cortex plan --out`, docs/design.md,
   * “Step scopes and plan approval”): the planner sees the same instructions and tools as in a run.
   */
  async draftPlan(): Promise<ParsedPlan> {
    if (this.started) throw new Error('a run can only be started once');
    this.started = true;
    try {
      await this.context.features.instructions.read();
      await this.startMcpServers();
      return await planTask(this.context, this.options.maxPlanSteps);
    } finally {
      await this.mcp?.stop();
    }
  }

  private async plan(): Promise<void> {
    const { log } = this.context;
    const { options, context } = this;
    const first = options.plan ?? (await planTask(context, options.maxPlanSteps));
    // In the `plan` approval mode a person approves it before anything runs (docs/design.md, “Step scopes and plan approval”).
    const plan = await approvedPlan(context, first, options.plan ? undefined : (revision) => planTask(context, options.maxPlanSteps, revision));
    for (const event of initialPlanEvents(log.state, plan, () => this.ids.next())) log.append(event);
  }

  /** Starts the run's MCP servers; their tools join the registry (docs/design.md, “MCP tools”). */
  private async startMcpServers(): Promise<void> {
    const { options, context } = this;
    const { session, tools } = await startRunMcp({
      servers: options.mcpServers ?? [],
      notices: options.mcpNotices ?? [],
      trusted: options.trusted,
      config: context.config,
      log: context.log,
      signal: this.abort.signal,
      processEnv: options.processEnv ?? process.env,
    });
    this.mcp = session;
    if (tools.length > 0)
      context.registry = createBuiltinRegistry(context.config, { trusted: options.trusted, extra: [...context.features.memory.tools, ...tools] });
  }

  /** Starts ready steps until nothing runs and nothing more can come; `growth`: a plan still streaming. */
  private async schedule(growth?: PlanGrowth): Promise<void> {
    const { log, config } = this.context;
    const { running } = this;
    const queue = new ReadyQueue(log.state);
    const unsubscribe = log.subscribe((event) => queue.observe(event));
    let replanChain: Promise<unknown> = Promise.resolve();
    const maxParallel = config['cortex.execution.maxParallelSteps'];
    await this.beforeSteps;
    while (!this.abort.signal.aborted && this.fatalError === undefined) {
      for (const stepId of growth?.holding ? [] : queue.ready(new Set([...running.keys(), ...this.withdrawn]))) {
        // Past a run cap no new step starts (docs/design.md, “Usage and cost”); running ones end their turn.
        if (running.size >= maxParallel || this.context.overBudget()) break;
        const task = this.runStep(stepId, (failedId) => {
          // Replans change the graph: serialise them, while other steps keep running; a plan still
          // streaming is final first (a discarded plan's step is not replanned).
          const next = replanChain
            .then(() => growth?.settled)
            .then(() => (log.state.steps.has(failedId) ? replanFailedStep(this.context, failedId, this.ids, this.replanStream) : undefined));
          replanChain = next.catch(() => undefined);
          return next;
        }).finally(() => running.delete(stepId));
        running.set(stepId, task);
      }
      if (running.size === 0 && !growth?.open) break;
      await Promise.race([...running.values(), this.redesignGrew.next(), ...(growth?.open ? [growth.changed()] : [])]);
    }
    await Promise.allSettled(running.values());
    unsubscribe();
  }

  private async runStep(stepId: string, replan: (stepId: string) => Promise<unknown>): Promise<void> {
    const { log } = this.context;
    log.append(startStepEvent(log.state, stepId));
    // The step's own signal: the run's, or its own cancel (a discarded streamed plan).
    const own = new AbortController();
    this.stepAborts.set(stepId, own);
    const context: RunContext = { ...this.context, signal: AbortSignal.any([this.abort.signal, own.signal]) };
    const end = await this.execute(context, stepId);
    // Nothing waits for the step's open approvals any more (normally none are left).
    this.options.approvals.withdrawStep(stepId, 'the step ended');
    // The verifier checks what the step declared and claimed (its commands may ask for approval).
    const proof =
      end.kind === 'loop' && end.outcome.endReason === 'answered' && !own.signal.aborted
        ? await this.proveStep(context, stepId, end.outcome.output)
        : undefined;
    this.stepAborts.delete(stepId);
    // A cancel of the step, or of the run while the verifier ran (a check command waiting for approval), ends the step as cancelled.
    const { events, replannable } =
      own.signal.aborted || (proof && this.abort.signal.aborted)
        ? stepEndEvents(log.state, stepId, { kind: 'cancelled' })
        : stepEndEvents(log.state, stepId, end, proof);
    if (end.kind === 'fatal') this.fatalError ??= end.message;
    for (const event of events) log.append(event);
    if (end.kind === 'fatal') this.abort.abort(new RunCancelled(this.fatalError ?? end.message));
    // Replanning is another LLM request: not past a run cap.
    if (!replannable || this.context.overBudget()) return;
    await this.replanStep(stepId, replan);
  }

  /** The step's proof; a check that could not be judged at all is recorded as a failed check. */
  private async proveStep(context: RunContext, stepId: string, answer: string): Promise<StepProof | undefined> {
    try {
      return await collectStepProof(context, stepId, answer);
    } catch (error) {
      if (context.signal.aborted) return undefined;
      const detail = `the verifier could not check this step: ${errorMessage(error)}`;
      return {
        postconditions: [{ kind: 'verifier_error', check: 'the verifier ran', passed: false, detail }],
        claims: [],
        requireVerified: this.context.config['cortex.verify.requireVerified'],
      };
    }
  }

  /** Replans a failed step; a fatal LLM error stops the run. */
  private async replanStep(stepId: string, replan: (stepId: string) => Promise<unknown>): Promise<void> {
    try {
      await replan(stepId);
    } catch (error) {
      if (isFatalLlmError(error) && !this.abort.signal.aborted) {
        this.fatalError ??= errorMessage(error);
        this.abort.abort(new RunCancelled(this.fatalError));
      }
    }
  }

  /** Runs the step's tool loop and says how it ended; only a cancel or a fatal LLM error stops the run. */
  private async execute(context: RunContext, stepId: string): Promise<StepEnd> {
    try {
      return { kind: 'loop', outcome: await executeStep(context, stepId) };
    } catch (error) {
      if (context.signal.aborted) return { kind: 'cancelled' };
      if (isFatalLlmError(error)) return { kind: 'fatal', message: errorMessage(error) };
      return { kind: 'error', error };
    }
  }

  private async finish(): Promise<RunResult> {
    const { log } = this.context;
    // Every server this run started stops with it, whatever happened.
    await this.mcp?.stop();
    // Every change is recorded before the run's last line.
    await this.context.features.checkpoints.close();
    const state = log.state;
    const cancelled = this.abort.signal.aborted && this.fatalError === undefined;
    const overBudget = cancelled ? undefined : this.context.overBudget();
    // Steps that never ran because something upstream did not complete are shown as blocked by it;
    // past a run cap, the ones that could have started are blocked by the cap.
    for (const id of state.stepOrder) {
      const step = state.steps.get(id)!;
      if (step.status !== 'not_started' || cancelled) continue;
      const culprit = step.dependsOn.find((dep) => state.steps.get(dep)?.status !== 'completed');
      if (culprit) log.append({ type: 'step_status_changed', stepId: id, status: 'blocked', reason: `blocked by ${culprit}`, blockedBy: culprit });
      else if (overBudget) log.append({ type: 'step_status_changed', stepId: id, status: 'blocked', reason: BUDGET_EXCEEDED });
    }
    let answer: string | undefined;
    if (overBudget) answer = `(The final summary was not written: ${overBudget}.)`;
    else if (!cancelled && this.fatalError === undefined && state.stepOrder.length > 0) {
      try {
        answer = await aggregate(this.context);
      } catch (error) {
        answer = `(The final summary could not be generated: ${errorMessage(error)})`;
      }
    }
    const allCompleted = state.stepOrder.length > 0 && state.stepOrder.every((id) => state.steps.get(id)!.status === 'completed');
    const status: RunResult['status'] = cancelled ? 'cancelled' : this.fatalError === undefined && allCompleted && !overBudget ? 'completed' : 'failed';
    const error =
      this.fatalError ??
      (overBudget ? `${BUDGET_EXCEEDED}: ${overBudget}` : undefined) ??
      (cancelled ? String((this.abort.signal.reason as Error)?.message ?? 'cancelled') : status === 'failed' ? describeIncomplete(state) : undefined);
    // Prompt counts still being made (context_cost records, calibration) land before the run's last line.
    await this.context.features.contextBudget.settled();
    const snapshot = { ...toSnapshot(state), status, answer, error };
    log.append({ type: 'run_finished', status, answer, error, plan: snapshot });
    return { status, answer, error, snapshot };
  }
}

/** The run's failure in the words the panel uses (step descriptions, no reason codes); ids and codes as a last resort. */
function describeIncomplete(state: EventLog['state']): string {
  const summary = runFailureSummary(state);
  if (summary) return summary;
  const bad = state.stepOrder.map((id) => state.steps.get(id)!).filter((s) => s.status !== 'completed');
  return `${bad.length} step(s) did not complete: ${bad.map((s) => `${s.id} ${s.status}${s.endReason ? ` (${s.endReason})` : ''}`).join(', ')}`;
}

function errorMessage(error: unknown): string {
  if (error instanceof LlmError) return error.message;
  if (error instanceof Error) return error.message;
  return String(error);
}
