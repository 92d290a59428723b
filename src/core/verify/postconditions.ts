import { lstat, readFile, realpath, stat } from 'node:fs/promises';
import type { CheckRecord } from '../plan/events';
import type { StepState } from '../plan/planTypes';
import { checkKind, describeCheck, type StepCheck } from '../plan/stepChecks';
import type { ProtectedPathMatcher } from '../files/protectedPaths';
import { globMatcher } from '../files/globPattern';
import { displayPath, resolveInWorkspace } from '../files/workspaceJail';
import { changesOf, commandsThatRan, modelCalls } from './stepEvidence';

// Checking a step's declared postconditions (docs/design.md, “The verifier and how a step ends”),
// each with its evidence. Paths go through the file tools' workspace jail (a check that names a
// place outside the workspace fails as invalid) and protected files are never read for a check.
// `command` checks are run by the caller's runner, on the run_command path (agent/checkCommand.ts).

/** What the verifier's own run of a `command` check gave. */
export interface CheckCommandRun {
  /** The call that ran it (a call of the step, marked as the verifier's). */
  callId?: string;
  /** False when it never ran: refused by the policy, denied by a person, not available. */
  ran: boolean;
  exitCode?: number | null;
  output: string;
  /** Why it did not run, in words. */
  reason?: string;
}

export interface PostconditionDeps {
  workspaceRoot: string;
  /** The step's final answer (not yet in the record when the step is judged). */
  answer: string;
  maxReadFileBytes: number;
  protectedPaths: ProtectedPathMatcher;
  /** Whether this run records what commands change (checkpoints on); else `changed` says so when it fails. */
  commandChangesRecorded: boolean;
  /** Runs a `command` check's command after the step, as run_command runs it. */
  runCommand(command: string, checkIndex: number): Promise<CheckCommandRun>;
}

/** Output kept in a check record: capped like a tool result shown in the panel. */
const MAX_CHECK_OUTPUT = 4000;

function clipOutput(output: string): string {
  return output.length > MAX_CHECK_OUTPUT ? `${output.slice(0, MAX_CHECK_OUTPUT)}\n… (${output.length - MAX_CHECK_OUTPUT} more characters)` : output;
}

function record(check: StepCheck, passed: boolean, detail: string, evidence?: CheckRecord['evidence']): CheckRecord {
  return { kind: checkKind(check), check: describeCheck(check), passed, detail, ...(evidence ? { evidence } : {}) };
}

/** The file a check names, resolved through the jail; a message when it cannot be used. */
async function locate(deps: PostconditionDeps, path: string): Promise<{ real: string; shown: string } | { problem: string }> {
  let real: string;
  try {
    real = await resolveInWorkspace(deps.workspaceRoot, path);
  } catch (error) {
    return { problem: `invalid check: ${(error as Error).message}` };
  }
  const shown = displayPath(await realpath(deps.workspaceRoot).catch(() => deps.workspaceRoot), real);
  const guarded = deps.protectedPaths.match('read', shown);
  if (guarded) return { problem: `${shown} is a protected file (${guarded}); the verifier does not read it` };
  return { real, shown };
}

async function existsCheck(check: Extract<StepCheck, { exists: string }>, deps: PostconditionDeps): Promise<CheckRecord> {
  const place = await locate(deps, check.exists);
  if ('problem' in place) return record(check, false, place.problem);
  const found = await stat(place.real).then(
    (s) => (s.isDirectory() ? 'a folder' : 'a file'),
    () => undefined,
  );
  return found
    ? record(check, true, `${place.shown} exists (${found})`, { path: place.shown })
    : record(check, false, `${place.shown} does not exist`, { path: place.shown });
}

async function absentCheck(check: Extract<StepCheck, { absent: string }>, deps: PostconditionDeps): Promise<CheckRecord> {
  const place = await locate(deps, check.absent);
  if ('problem' in place) return record(check, false, place.problem);
  const present = await lstat(place.real).then(
    () => true,
    () => false,
  );
  return present
    ? record(check, false, `${place.shown} still exists`, { path: place.shown })
    : record(check, true, `${place.shown} is absent`, { path: place.shown });
}

async function containsCheck(check: Extract<StepCheck, { contains: string }>, deps: PostconditionDeps): Promise<CheckRecord> {
  const place = await locate(deps, check.contains);
  if ('problem' in place) return record(check, false, place.problem);
  const info = await stat(place.real).catch(() => undefined);
  if (!info) return record(check, false, `${place.shown} does not exist`, { path: place.shown });
  if (!info.isFile()) return record(check, false, `${place.shown} is not a file`, { path: place.shown });
  if (info.size > deps.maxReadFileBytes)
    return record(check, false, `${place.shown} is larger than ${deps.maxReadFileBytes} bytes (cortex.limits.maxReadFileBytes), too large to check`, {
      path: place.shown,
    });
  const content = await readFile(place.real, 'utf8');
  const found = 'text' in check ? content.includes(check.text) : new RegExp(check.pattern, 'm').test(content);
  const what = 'text' in check ? `the text ${JSON.stringify(check.text)}` : `a match of /${check.pattern}/`;
  return record(check, found, `${place.shown} ${found ? 'contains' : 'does not contain'} ${what}`, { path: place.shown });
}

function changedCheck(check: Extract<StepCheck, { changed: string }>, step: StepState, deps: PostconditionDeps): CheckRecord {
  const matches = globMatcher(check.changed);
  const change = changesOf(step, deps.workspaceRoot).find((c) => matches(c.path));
  if (!change) {
    const unrecorded =
      !deps.commandChangesRecorded && commandsThatRan(step).length > 0
        ? ' (this run does not record what commands change, as checkpoints are off: a command of this step may have changed it; check with exists or contains instead)'
        : '';
    return record(check, false, `no file matching ${check.changed} was created, modified or deleted by this step${unrecorded}`);
  }
  return record(check, true, `${change.path} was changed by call ${change.callId}`, {
    callId: change.callId,
    path: change.path,
    ...(change.seq !== undefined ? { changeSeq: change.seq } : {}),
  });
}

function calledCheck(check: Extract<StepCheck, { called: string }>, step: StepState): CheckRecord {
  const calls = modelCalls(step).filter((call) => call.name === check.called);
  const success = calls.find((call) => call.status === 'success');
  if (success) return record(check, true, `${check.called} succeeded in call ${success.id}`, { callId: success.id });
  return record(check, false, calls.length ? `every ${check.called} call of this step failed or was refused` : `this step made no ${check.called} call`);
}

function answerCheck(check: Extract<StepCheck, { answer: string }>, answer: string): CheckRecord {
  const match = new RegExp(check.answer, 'm').exec(answer);
  return match ? record(check, true, `the answer matches ("${match[0].slice(0, 200)}")`) : record(check, false, 'the answer does not match');
}

async function commandCheck(check: Extract<StepCheck, { command: string }>, index: number, deps: PostconditionDeps): Promise<CheckRecord> {
  const run = await deps.runCommand(check.command, index);
  const evidence: CheckRecord['evidence'] = { ...(run.callId ? { callId: run.callId } : {}), output: clipOutput(run.output) };
  if (!run.ran) return record(check, false, `the command did not run: ${run.reason ?? 'unknown reason'}`, evidence);
  evidence.exitCode = run.exitCode ?? null;
  if (run.exitCode === check.exit) return record(check, true, `it exited ${check.exit}`, evidence);
  return record(
    check,
    false,
    run.exitCode === null || run.exitCode === undefined ? 'it was stopped by a signal' : `it exited ${run.exitCode}, not ${check.exit}`,
    evidence,
  );
}

/**
 * Every declared check of `step`, in the declared order. Checks of the record and the disk are
 * taken first (as the step left things), then the commands run, one at a time.
 */
export async function checkPostconditions(step: StepState, checks: readonly StepCheck[], deps: PostconditionDeps): Promise<CheckRecord[]> {
  const results: Array<CheckRecord | undefined> = [];
  for (const check of checks) {
    if ('changed' in check) results.push(changedCheck(check, step, deps));
    else if ('exists' in check) results.push(await existsCheck(check, deps));
    else if ('absent' in check) results.push(await absentCheck(check, deps));
    else if ('contains' in check) results.push(await containsCheck(check, deps));
    else if ('called' in check) results.push(calledCheck(check, step));
    else if ('answer' in check) results.push(answerCheck(check, deps.answer));
    else results.push(undefined);
  }
  for (let i = 0; i < checks.length; i++) {
    const check = checks[i];
    if ('command' in check) results[i] = await commandCheck(check, i, deps);
  }
  return results.map((r) => r!);
}
