import { PlanGraph } from '../plan/planGraph';
import { blockDownstreamEvents, replaceSubgraphEvents, type StepIdAllocator } from '../plan/planOperations';
import { callLlm, isFatalLlmError } from './llmCall';
import { buildReplanMessages, parseReplanReply } from './replanPrompt';
import type { RunContext } from './runContext';

/**
 * Handles a step that failed verification (seed 000): within the lineage's attempt budget, one
 * replanner call redesigns the failed step plus its whole downstream subgraph while completed work
 * stays; past the budget, on give_up, or when the replanner itself fails, the step is blocked and
 * its downstream is shown as blocked by it.
 */
export async function replanFailedStep(context: RunContext, failedStepId: string, reason: string, ids: StepIdAllocator): Promise<'redesigned' | 'blocked'> {
  const { log, config } = context;
  const state = log.state;
  const failed = state.steps.get(failedStepId);
  if (!failed) return 'blocked';
  const maxAttempts = config['cortex.replan.maxAttempts'];
  const block = (why: string) => {
    log.append({ type: 'step_status_changed', stepId: failedStepId, status: 'blocked', reason: why });
    for (const event of blockDownstreamEvents(state, failedStepId, why)) log.append(event);
    return 'blocked' as const;
  };
  if (failed.replanAttempts >= maxAttempts) {
    return block(`${reason}; replan limit reached (${failed.replanAttempts} of ${maxAttempts} rewrites used)`);
  }

  const downstream = PlanGraph.fromState(state).downstream(failedStepId);
  const stepsToReplan = [failedStepId, ...downstream];
  const tools = context.registry.specs().map((t) => ({ name: t.function.name, description: t.function.description }));
  const attempt = failed.replanAttempts + 1;
  let result;
  try {
    const response = await callLlm(context, { purpose: 'replanner', stepId: failedStepId, messages: buildReplanMessages(state, failedStepId, stepsToReplan, tools), stream: false, jsonResponse: true });
    result = parseReplanReply(response.content);
  } catch (error) {
    if (isFatalLlmError(error)) throw error;
    log.append({ type: 'log', level: 'warn', stepId: failedStepId, message: `Replanner failed: ${(error as Error).message}` });
    return block(`${reason}; the replanner failed: ${(error as Error).message}`);
  }

  if (result.action === 'give_up') {
    log.append({ type: 'subgraph_replaced', replan: { failedStepId, replacedStepIds: [], newStepIds: [], attempt, maxAttempts, reason, action: 'give_up' } });
    return block(`${reason}; the replanner gave up`);
  }
  const events = replaceSubgraphEvents(state, {
    failedStepId,
    replacedStepIds: stepsToReplan,
    newSteps: result.new_steps,
    newDependencies: result.new_dependencies,
    attempt,
    maxAttempts,
    reason,
    newId: () => ids.next(),
  });
  for (const event of events) log.append(event);
  return 'redesigned';
}
