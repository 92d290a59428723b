import type { ChatMessage } from '../llm/llmTypes';
import { replanReason, type StepIdAllocator } from '../plan/planOperations';
import { IncrementalPlanReader, type PlanPart } from './incrementalPlanReader';
import { callLlm, isFatalLlmError } from './llmCall';
import { discardStreamedSteps, type PlanStreamControl } from './planStream';
import { replanDecisionEvents, revertFailedSubgraph } from './replanOutcome';
import { parseReplanReply, type ReplanResult } from './replanPrompt';
import type { RunContext } from './runContext';
import { StreamedRedesignSteps } from './streamedRedesignSteps';

// A redesign that streams (docs/design.md, “The replanner”): once the reply shows
// `"action": "redesign"`, what the failed subgraph changed is reverted, then each new step joins
// the plan as its entry is complete, and the scheduler starts it when its dependencies completed,
// while the reply is still being written. The failed step stays in the plan until the reply ends
// and is checked whole, as a reply read whole is: agreeing, the rest joins and the failed subgraph
// leaves; invalid, the new steps are discarded (cancelled, reverted, out of the plan) and the
// caller blocks the failed step; valid but different, they are discarded and the checked reply is
// applied as one read whole.

/** Most new steps a redesign may have (parseReplanReply's limit). */
const MAX_NEW_STEPS = 50;

/** What a streamed redesign needs from the run: undo steps it started, and wake the scheduler when steps join. */
export interface ReplanStreamControl extends PlanStreamControl {
  stepsAdded(): void;
}

export interface StreamedRedesignInput {
  failedStepId: string;
  /** The failed step and its downstream. */
  stepsToReplan: readonly string[];
  maxAttempts: number;
  messages: ChatMessage[];
}

export class StreamedRedesign {
  private readonly reader = new IncrementalPlanReader(MAX_NEW_STEPS, 'replan');
  private readonly steps: StreamedRedesignSteps;
  /** The failed subgraph's revert, started when the reply shows a redesign; steps join after it. */
  private reverting: Promise<void> | undefined;
  private joining = false;
  private readonly waiting: PlanPart[] = [];

  constructor(
    private readonly context: RunContext,
    private readonly ids: StepIdAllocator,
    private readonly control: ReplanStreamControl,
    private readonly input: StreamedRedesignInput,
  ) {
    this.steps = new StreamedRedesignSteps(context.log, ids, { failedStepId: input.failedStepId, replacedStepIds: input.stepsToReplan });
  }

  /** Asks the replanner and applies its decision. Throws (after discarding what joined) when the reply is unusable. */
  async run(): Promise<'redesigned' | 'blocked'> {
    const { context, input } = this;
    let streamed = false;
    let content: string;
    try {
      const response = await callLlm(context, {
        purpose: 'replanner',
        stepId: input.failedStepId,
        messages: input.messages,
        stream: true,
        jsonResponse: true,
        // A second attempt's text starts again: what it says is only read whole at the end.
        onStreamStart: () => (streamed ? this.reader.stop('the replanner request was sent again') : undefined),
        onContentDelta: (text) => {
          streamed = true;
          this.take(this.reader.push(text));
        },
      });
      content = response.content;
      await this.reverting;
    } catch (error) {
      await this.reverting;
      if (!isFatalLlmError(error)) await this.discard(`the replanner's request failed: ${(error as Error).message}`);
      throw error;
    }
    let result: ReplanResult;
    let differs: string | undefined;
    try {
      result = parseReplanReply(content, { maxNewSteps: MAX_NEW_STEPS });
      differs = result.action === 'give_up' ? (this.steps.addedIds.length > 0 ? 'the whole reply gives up' : undefined) : this.steps.disagreement(result);
    } catch (error) {
      await this.discard(`the streamed redesign is invalid: ${(error as Error).message}`);
      throw error;
    }
    const redesign = result.action === 'redesign';
    if (redesign && !this.reverting) await revertFailedSubgraph(context, input.stepsToReplan);
    if (differs !== undefined || !redesign) {
      await this.discard(`the redesign as streamed differs from the whole reply (${differs}); it is applied from the whole reply`);
      for (const event of replanDecisionEvents(context, input.failedStepId, result, input.maxAttempts, this.ids)) context.log.append(event);
    } else {
      const failed = context.log.state.steps.get(input.failedStepId)!;
      try {
        this.steps.complete(result, { attempt: failed.replanAttempts + 1, maxAttempts: input.maxAttempts, reason: replanReason(failed, result.reason) });
      } catch (error) {
        await this.discard(`the streamed redesign cannot be applied: ${(error as Error).message}`);
        throw error;
      }
      this.control.stepsAdded();
    }
    return redesign ? 'redesigned' : 'blocked';
  }

  /** Parts of the reply as it streams: a redesign starts the revert; steps join once it is done. */
  private take(parts: PlanPart[]): void {
    for (const part of parts) {
      if (!this.reverting && part.kind === 'action') {
        // A give_up has nothing to start: it is read whole at the end.
        if (part.action !== 'redesign') return this.reader.stop('the replanner gives up');
        this.reverting = revertFailedSubgraph(this.context, this.input.stepsToReplan).then(() => {
          this.joining = true;
          this.join(this.waiting.splice(0));
        });
      } else if (this.joining) this.join([part]);
      else this.waiting.push(part);
    }
  }

  private join(parts: PlanPart[]): void {
    let added = 0;
    for (const part of parts) added += this.steps.take(part);
    if (added > 0) this.control.stepsAdded();
  }

  /** Cancels the new steps that joined, reverts what the started ones changed and takes them out of the plan. */
  private async discard(reason: string): Promise<void> {
    const stepIds = this.steps.addedIds;
    if (stepIds.length === 0) return;
    const state = this.context.log.state;
    const started = stepIds.filter((id) => state.steps.get(id)?.status !== 'not_started');
    await this.control.cancelSteps(stepIds, reason);
    await discardStreamedSteps(this.context, stepIds, reason, started, `Streamed redesign of ${this.input.failedStepId}`);
  }
}
