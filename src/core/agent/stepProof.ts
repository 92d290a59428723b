import { compileProtectedPaths } from '../files/protectedPaths';
import { checkClaims } from '../verify/claimChecks';
import { checkPostconditions } from '../verify/postconditions';
import { runCheckCommand } from './checkCommand';
import type { RunContext } from './runContext';
import { getFailedCalls, type StepProof } from './verifier';

/**
 * Gathers what the verifier judges a step by, after its tool loop answered (docs/design.md, “The
 * verifier and how a step ends”): its declared checks (commands run as the verifier's calls) and
 * the claims of its answer. A step with unanswered calls has already failed: nothing is run for it.
 */
export async function collectStepProof(context: RunContext, stepId: string, answer: string): Promise<StepProof> {
  const requireVerified = context.config['cortex.verify.requireVerified'];
  const step = context.log.state.steps.get(stepId);
  if (!step || getFailedCalls(step).length > 0) return { postconditions: [], claims: [], requireVerified };
  // Without checkpoints, file tools still say what they wrote, but what commands change is unknown.
  const commandChangesRecorded = context.features.checkpoints.recording;
  const postconditions = await checkPostconditions(step, step.expects ?? [], {
    workspaceRoot: context.workspaceRoot,
    commandChangesRecorded,
    answer,
    maxReadFileBytes: context.config['cortex.limits.maxReadFileBytes'],
    protectedPaths: compileProtectedPaths(context.config['cortex.policy.protectedPaths']),
    runCommand: (command, index) => runCheckCommand(context, stepId, command, index),
  });
  // The claims are read against the record as it is now (the verifier's own runs are marked).
  const claims = checkClaims(context.log.state.steps.get(stepId) ?? step, answer, context.workspaceRoot, postconditions, commandChangesRecorded);
  return { postconditions, claims, requireVerified };
}
