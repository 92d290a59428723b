import { blockStepEvents, nextReplan, replanLimitEvents, replanOutcomeEvents, type StepIdAllocator } from '../plan/planOperations';
import { callLlm, isFatalLlmError } from './llmCall';
import { buildReplanMessages, parseReplanReply } from './replanPrompt';
import type { RunContext } from './runContext';
import { toolSummaries } from '../mcp/toolSummaries';
import { approveRedesign } from './planApproval';

/**
 * Handles a step that failed verification (docs/design.md, “The replanner”): within the lineage's attempt budget, one
 * replanner call redesigns the failed step plus its whole downstream subgraph while completed work
 * stays; past the budget, on give_up, or when the replanner fails or answers something unusable,
 * the step is blocked (with the reason) and its downstream is shown as blocked by it.
 */
export async function replanFailedStep(context: RunContext, failedStepId: string, ids: StepIdAllocator): Promise<'redesigned' | 'blocked'> {
  const { log, config } = context;
  const append = (events: Parameters<typeof log.append>[0][]) => events.forEach((event) => log.append(event));
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
    // Streamed as the planner's is (cortex.planning.stream), but read whole: a redesign is one event naming all its new steps.
    const stream = config['cortex.planning.stream'];
    const response = await callLlm(context, { purpose: 'replanner', stepId: failedStepId, messages, stream, jsonResponse: true });
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
    const outcome = replanOutcomeEvents(log.state, {
      failedStepId,
      decision: {
        action: result.action,
        newSteps: result.new_steps,
        newExpects: result.new_expects,
        newScopes: result.new_scopes,
        newDependencies: result.new_dependencies,
        uses: result.uses,
        reason: result.reason,
      },
      maxAttempts,
      newId: () => ids.next(),
    });
    // The redesigned subgraph starts from a clean state: what the replaced steps changed is put back first (docs/design.md, “Checkpoints and revert”).
    if (result.action === 'redesign' && config['cortex.replan.revertFailedChanges']) await context.features.checkpoints.revertSteps(plan.stepsToReplan);
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
