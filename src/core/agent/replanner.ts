import { blockStepEvents, nextReplan, replanLimitEvents, type StepIdAllocator } from '../plan/planOperations';
import { callLlm, isFatalLlmError } from './llmCall';
import { buildReplanMessages, parseReplanReply } from './replanPrompt';
import type { RunContext } from './runContext';
import { toolSummaries } from '../mcp/toolSummaries';
import { approveRedesign, planMode } from './planApproval';
import { discardStreamedSteps } from './planStream';
import { replanDecisionEvents, revertFailedSubgraph } from './replanOutcome';
import { StreamedRedesign, type ReplanStreamControl } from './replanStream';

/**
 * Handles a step that failed verification (docs/design.md, “The replanner”): within the lineage's attempt budget, one
 * replanner call redesigns the failed step plus its whole downstream subgraph while completed work
 * stays; past the budget, on give_up, or when the replanner fails or answers something unusable,
 * the step is blocked (with the reason) and its downstream is shown as blocked by it. With
 * `stream` (the run's scheduler) and cortex.planning.stream, a redesign's steps start while its
 * reply streams, unless a person approves redesigns (the `plan` approval mode): then it is read whole.
 */
export async function replanFailedStep(
  context: RunContext,
  failedStepId: string,
  ids: StepIdAllocator,
  stream?: ReplanStreamControl,
): Promise<'redesigned' | 'blocked'> {
  const { log, config } = context;
  const append = (events: Parameters<typeof log.append>[0][]) => events.forEach((event) => log.append(event));
  await discardUnfinishedRedesign(context, failedStepId);
  const maxAttempts = config['cortex.replan.maxAttempts'];
  const plan = nextReplan(log.state, failedStepId, maxAttempts);
  if (!plan.allowed) {
    append(replanLimitEvents(log.state, failedStepId));
    return 'blocked';
  }
  const tools = toolSummaries(context.registry);
  try {
    const messages = context.features.instructions.addTo(
      buildReplanMessages(log.state, failedStepId, plan.stepsToReplan, tools, { maxAttempts, promptBudget: context.features.contextBudget.promptLimit() }),
    );
    if (stream && config['cortex.planning.stream'] && !planMode(context))
      return await new StreamedRedesign(context, ids, stream, { failedStepId, stepsToReplan: plan.stepsToReplan, maxAttempts, messages }).run();
    // Read whole (streamed when cortex.planning.stream is on): a redesign is one event naming all its new steps.
    const response = await callLlm(context, {
      purpose: 'replanner',
      stepId: failedStepId,
      messages,
      stream: config['cortex.planning.stream'],
      jsonResponse: true,
    });
    const result = parseReplanReply(response.content);
    // Under an approved plan, a redesign that needs more than was approved asks first (docs/design.md, “Step scopes and plan approval”).
    if (result.action === 'redesign') {
      const approval = await approveRedesign(context, failedStepId, {
        title: log.state.title,
        steps: result.new_steps,
        dependencies: result.new_dependencies,
        ...(result.new_expects ? { expects: result.new_expects } : {}),
        ...(result.new_scopes ? { scopes: result.new_scopes } : {}),
      });
      if (!approval.ok) {
        log.append({ type: 'log', level: 'warn', stepId: failedStepId, message: `Replanning ${failedStepId}: ${approval.reason}` });
        append(blockStepEvents(log.state, failedStepId, approval.reason));
        return 'blocked';
      }
    }
    const outcome = replanDecisionEvents(context, failedStepId, result, maxAttempts, ids);
    // The redesigned subgraph starts from a clean state: what the replaced steps changed is put back first (docs/design.md, “Checkpoints and revert”).
    if (result.action === 'redesign') await revertFailedSubgraph(context, plan.stepsToReplan);
    append(outcome);
    return result.action === 'redesign' ? 'redesigned' : 'blocked';
  } catch (error) {
    if (isFatalLlmError(error)) throw error;
    const why = `replan_failed: ${(error as Error).message}`;
    log.append({ type: 'log', level: 'warn', stepId: failedStepId, message: `Replanning ${failedStepId} failed: ${(error as Error).message}` });
    append(blockStepEvents(log.state, failedStepId, why));
    return 'blocked';
  }
}

/**
 * Steps of a streamed redesign of `failedStepId` still in the plan while it is: the run stopped
 * before that reply ended (docs/design.md, “Resuming a run”). The rest of the reply is lost, so
 * they go (their changes reverted) before the step is replanned again.
 */
async function discardUnfinishedRedesign(context: RunContext, failedStepId: string): Promise<void> {
  const { state } = context.log;
  const left = state.stepOrder.filter((id) => state.steps.get(id)?.redesignOf === failedStepId);
  if (left.length === 0) return;
  // A step that was running when the run stopped is not_started again, but may have changed files.
  const started = left.filter((id) => state.steps.get(id)!.status !== 'not_started' || state.steps.get(id)!.files.length > 0);
  await discardStreamedSteps(
    context,
    left,
    `the run stopped before the redesign of ${failedStepId} had finished streaming; it is replanned again`,
    started,
    `Streamed redesign of ${failedStepId}`,
  );
}
