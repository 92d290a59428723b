import type { ChatMessage } from '../llm/llmTypes';
import { toolSummaries } from '../mcp/toolSummaries';
import { initialPlanEvents, type StepIdAllocator } from '../plan/planOperations';
import { IncrementalPlanReader } from './incrementalPlanReader';
import { callLlm } from './llmCall';
import { ChangeSignal } from './changeSignal';
import { buildPlannerMessages, parsePlannerReply, type ParsedPlan } from './planParsing';
import { PlanningError } from './planner';
import type { RunContext } from './runContext';
import { StreamedPlanSteps } from './streamedPlanSteps';

// Streamed planning (docs/design.md, “The planner”): the planner's reply is streamed and its steps
// join the plan as they are written, so the scheduler starts a step while the rest of the plan is
// still coming. When the reply ends it is checked whole, as a non-streamed one is; an invalid plan
// (or one that disagrees with what was already added) has its steps cancelled, their changes
// reverted through the checkpoints and the steps discarded, with the reason in the trace, before
// the corrective retry — or, for a valid plan that only disagrees, before the checked plan is added.

/** What the scheduler reads while the plan grows. */
export interface PlanGrowth {
  /** More steps may still come. */
  readonly open: boolean;
  /** No step may start now: the finished reply is being checked, or a discarded plan undone. */
  readonly holding: boolean;
  /** Resolves at the next change: steps added, a hold lifted, the plan closed. */
  changed(): Promise<void>;
  /** Resolves once the plan is final (replans wait for it: they change the graph). */
  readonly settled: Promise<void>;
}

/** What the streamed planner needs from the run to undo steps it started. */
export interface PlanStreamControl {
  /** Cancels these steps if they run and resolves when each has ended. */
  cancelSteps(stepIds: readonly string[], reason: string): Promise<void>;
}

export class StreamedPlanner implements PlanGrowth {
  open = true;
  holding = false;
  readonly settled: Promise<void>;
  private settle!: () => void;
  private readonly signal = new ChangeSignal();

  constructor(
    private readonly context: RunContext,
    private readonly ids: StepIdAllocator,
    private readonly control: PlanStreamControl,
    private readonly maxSteps = 100,
  ) {
    this.settled = new Promise((resolve) => (this.settle = resolve));
  }

  changed(): Promise<void> {
    return this.signal.next();
  }

  /** Plans the run; the plan's steps are in the log when it resolves. Throws PlanningError after the corrective retry failed. */
  async run(): Promise<void> {
    try {
      await this.plan();
    } finally {
      this.open = false;
      this.holding = false;
      this.settle();
      this.signal.notify();
    }
  }

  private async plan(): Promise<void> {
    const { context } = this;
    const messages: ChatMessage[] = context.features.instructions.addTo(buildPlannerMessages(context.task, toolSummaries(context.registry)));
    let lastError = '';
    for (let attempt = 1; attempt <= 2; attempt++) {
      const reader = new IncrementalPlanReader(this.maxSteps);
      const steps = new StreamedPlanSteps(context.log, this.ids);
      let streamed = false;
      const response = await callLlm(context, {
        purpose: 'planner',
        messages,
        stream: true,
        jsonResponse: true,
        // A second attempt's text starts again: what it says is only read whole at the end.
        onStreamStart: () => (streamed ? reader.stop('the planner request was sent again') : undefined),
        onContentDelta: (text) => {
          streamed = true;
          let added = 0;
          for (const part of reader.push(text)) added += steps.take(part);
          if (added > 0) this.signal.notify();
        },
      });
      this.holding = true;
      let plan: ParsedPlan;
      try {
        plan = parsePlannerReply(response.content, { maxSteps: this.maxSteps });
      } catch (error) {
        lastError = (error as Error).message;
        context.log.append({
          type: 'log',
          level: 'warn',
          message: `Planner reply rejected (attempt ${attempt} of 2): ${lastError}`,
          data: { reply: response.content.slice(0, 2000) },
        });
        await this.discard(steps.addedIds, `the streamed plan is invalid: ${lastError}`);
        messages.push(
          { role: 'assistant', content: response.content },
          { role: 'user', content: `That reply is not a valid plan: ${lastError}. Answer again with only the JSON object.` },
        );
        this.holding = false;
        continue;
      }
      const disagreement = steps.disagreement(plan);
      if (disagreement === undefined) steps.complete(plan);
      else {
        await this.discard(steps.addedIds, `the plan as streamed differs from the whole reply (${disagreement}); it starts again from the whole reply`);
        for (const event of initialPlanEvents(context.log.state, plan, () => this.ids.next())) context.log.append(event);
      }
      return;
    }
    throw new PlanningError(`The model did not produce a valid plan: ${lastError}`);
  }

  /** Cancels the streamed steps that started, reverts their changes and takes the steps out of the plan. */
  private async discard(stepIds: readonly string[], reason: string): Promise<void> {
    if (stepIds.length === 0) return;
    const state = this.context.log.state;
    const started = stepIds.filter((id) => state.steps.get(id)?.status !== 'not_started');
    await this.control.cancelSteps(stepIds, reason);
    await discardStreamedSteps(this.context, stepIds, reason, started);
  }
}

/**
 * Reverts what the `started` steps changed (through the checkpoints) and records `plan_discarded`
 * for `stepIds`, with a warning that says what happened. The steps no longer run. `what` names
 * them in the warning (a streamed plan, or a streamed redesign).
 */
export async function discardStreamedSteps(
  context: RunContext,
  stepIds: readonly string[],
  reason: string,
  started = stepIds.filter((id) => (context.log.state.steps.get(id)?.status ?? 'not_started') !== 'not_started'),
  what = 'Streamed plan',
): Promise<void> {
  if (stepIds.length === 0) return;
  const { checkpoints } = context.features;
  if (started.length > 0 && checkpoints.recording) await checkpoints.revertSteps(started, 'plan_discarded');
  else if (started.length > 0)
    context.log.append({ type: 'log', level: 'warn', message: `Checkpoints are off: what ${started.join(', ')} changed stays as it is.` });
  context.log.append({ type: 'plan_discarded', stepIds: [...stepIds], reason });
  const said = started.length > 0 ? `${started.length} started step(s) (${started.join(', ')}) cancelled and their changes reverted` : 'no step had started';
  context.log.append({ type: 'log', level: 'warn', message: `${what} discarded: ${reason}; ${said}.` });
}
