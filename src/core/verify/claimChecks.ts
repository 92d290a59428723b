import type { CheckRecord } from '../plan/events';
import type { StepState } from '../plan/planTypes';
import { readClaims, type Claim } from './claimReader';
import { changeOfClaimedPath, changesOf, commandsThatRan, modelCalls, successfulCommands } from './stepEvidence';

// The evidence-bound answer (docs/design.md, “The verifier and how a step ends”): each claim the
// claim reader finds in the step's answer is a check, backed by the record or not. A file claim
// needs a recorded change of that file in this step; a claim that tests or a build passed needs a
// command of this step that exited 0, or a `command` check that held.

/**
 * A file claim, or undefined when the record cannot decide it: the step ran a command and this run
 * does not record what commands change (no checkpoints), so the command may have made the file.
 */
function fileClaim(claim: Extract<Claim, { kind: 'file' }>, step: StepState, workspaceRoot: string, commandChangesRecorded: boolean): CheckRecord | undefined {
  const changes = changesOf(step, workspaceRoot);
  for (const path of claim.paths) {
    const change = changeOfClaimedPath(changes, path, workspaceRoot);
    if (change)
      return {
        kind: 'claim',
        check: claim.sentence,
        passed: true,
        detail: `${change.path} was changed by call ${change.callId}`,
        evidence: { callId: change.callId, path: change.path, ...(change.seq !== undefined ? { changeSeq: change.seq } : {}) },
      };
  }
  if (!commandChangesRecorded && commandsThatRan(step).length > 0) return undefined;
  const changed = [...new Set(changes.map((c) => c.path))];
  const named = claim.paths.join(', ');
  return {
    kind: 'claim',
    check: claim.sentence,
    passed: false,
    detail: `this step recorded no change of ${named}${changed.length ? ` (it changed ${changed.slice(0, 5).join(', ')}${changed.length > 5 ? ', …' : ''})` : ' (it changed no file)'}`,
  };
}

function passedClaim(claim: Claim, step: StepState, postconditions: readonly CheckRecord[]): CheckRecord {
  const command = successfulCommands(step)[0];
  if (command)
    return {
      kind: 'claim',
      check: claim.sentence,
      passed: true,
      detail: `a command of this step succeeded (call ${command.id})`,
      evidence: { callId: command.id, exitCode: 0 },
    };
  const held = postconditions.find((record) => record.kind === 'command' && record.passed);
  if (held) return { kind: 'claim', check: claim.sentence, passed: true, detail: `the check ${held.check} held`, evidence: held.evidence };
  const commands = modelCalls(step).filter((call) => call.name === 'run_command');
  const ran = commands.find((call) => call.exitCode !== undefined);
  return {
    kind: 'claim',
    check: claim.sentence,
    passed: false,
    detail: `${
      ran
        ? `no command of this step succeeded (call ${ran.id} exited ${ran.exitCode ?? 'on a signal'})`
        : commands.length
          ? 'no command of this step ran to its end'
          : 'this step ran no command'
    } and no command check held`,
    ...(ran ? { evidence: { callId: ran.id, exitCode: ran.exitCode ?? null } } : {}),
  };
}

/**
 * Every claim of the step's answer, with what backs it or what is missing. `commandChangesRecorded`:
 * the run records what commands change (checkpoints are on); without it a file claim of a step
 * that ran a command is not judged.
 */
export function checkClaims(
  step: StepState,
  answer: string,
  workspaceRoot: string,
  postconditions: readonly CheckRecord[],
  commandChangesRecorded = true,
): CheckRecord[] {
  return readClaims(answer)
    .map((claim) => (claim.kind === 'file' ? fileClaim(claim, step, workspaceRoot, commandChangesRecorded) : passedClaim(claim, step, postconditions)))
    .filter((record): record is CheckRecord => record !== undefined);
}
