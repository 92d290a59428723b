import { usageFailure } from './usageFailure';
import type { RevertConflict, RevertedFile } from '../core/plan/changeSchema';
import { appendToTrace, revertRecorded, undoLastRevert, type RevertResult, type RunReview } from '../core/checkpoints/runReview';
import { parseReviewArgs, UsageError, type ReviewArgs } from './cliArgs';
import { openReviewFor, type ReviewIo } from './cliDiff';
import { printLine } from './cliSession';
import { confirmProtected, unconfirmedProtected } from './protectedRestores';
import { EXIT } from './exitCode';

// `cortex revert --trace FILE [--step ID]... [--force]` and `--undo` (docs/design.md, “Checkpoints and revert”): puts back
// what a recorded run changed, checks every file first, and appends the revert to the trace as a
// files_reverted event, so replaying the trace shows it and `--undo` can take it back.

export const REVERT_USAGE = `Usage: cortex revert --trace FILE [--step ID]... [--force] [--allow-protected PATH]...
                     [--checkpoints DIR] [--workspace DIR]
       cortex revert --trace FILE --undo [--force] [--allow-protected PATH]... [--checkpoints DIR] [--workspace DIR]

Puts back the files a recorded run changed: the whole run, or with --step ID each given step and
every step after it (the steps that built on it). A file changed since the run (its content is
not what the run left), or changed later by a step that is not reverted, is left alone and
listed; --force overwrites it (and also reverts a run whose trace never finished). A file whose
earlier content was not saved (too large, or changed by a command without git) cannot be put
back. What a revert overwrites is saved, and --undo undoes the last revert. The revert is
appended to the trace.

The trace is input like any other file: the revert acts on --workspace DIR (default: the current
folder), and a trace recorded for another folder is refused. Nothing inside a .git folder, nor
the trace, its lock or its checkpoint folder, is ever written. A protected path
(cortex.policy.protectedPaths, e.g. .vscode/tasks.json or .github/workflows/) is written only
when confirmed: asked on a terminal, else only when named with --allow-protected PATH (once per
path). --force overwrites changes made since; it never writes a protected path.
Exit codes: 0 everything put back, 1 files were left alone (listed) or nothing to undo, 2 usage error.`;

function fileLine(file: RevertedFile): string | undefined {
  if (file.folder === 'created') return `  created folder ${file.path}/`;
  if (file.folder === 'removed') return `  removed folder ${file.path}/`;
  if (file.folder === 'unchanged' || file.from === file.to) return undefined;
  if (file.to === null) return `  removed ${file.path}`;
  if (file.from === null) return `  restored ${file.path} (it had been deleted)`;
  return `  restored ${file.path}`;
}

function conflictLine(conflict: RevertConflict): string {
  return `  left alone: ${conflict.path} — ${conflict.detail}`;
}

/** Prints what a revert did and returns the exit code. */
function report(io: ReviewIo, result: RevertResult, what: string): number {
  const { files, conflicts } = result.outcome;
  const lines = files.map(fileLine).filter((line): line is string => line !== undefined);
  for (const line of lines) printLine(io.stdout, line);
  for (const conflict of conflicts) printLine(io.stdout, conflictLine(conflict));
  const forceable = conflicts.filter((c) => c.reason === 'changed_since' || c.reason === 'changed_by_other_step').length;
  printLine(
    io.stderr,
    `${what}: ${lines.length} path${lines.length === 1 ? '' : 's'} put back${conflicts.length ? `, ${conflicts.length} left alone${forceable ? ' (run again with --force to overwrite those changed since)' : ''}` : ''}`,
  );
  return conflicts.length > 0 ? EXIT.incomplete : EXIT.completed;
}

/** The protected paths named with --allow-protected, plus those confirmed on the terminal after a dry run. */
async function confirmedPaths(named: string[], io: ReviewIo, dryRun: () => Promise<RevertResult | undefined>): Promise<string[]> {
  const dry = await dryRun();
  const pending = dry ? unconfirmedProtected(dry.outcome.conflicts) : [];
  return [...named, ...(await confirmProtected(io, pending, 'cortex revert'))];
}

async function run(args: ReviewArgs, review: RunReview, io: ReviewIo): Promise<number> {
  const named = args.allowProtected.map((path) => path.replace(/^(\.\/)+/, ''));
  if (args.undo) {
    const confirmed = await confirmedPaths(named, io, () => undoLastRevert(review, { force: args.force, dryRun: true, confirmed: named }));
    const undone = await undoLastRevert(review, { force: args.force, confirmed });
    if (!undone) {
      printLine(io.stderr, 'cortex: there is no revert to undo in this trace');
      return EXIT.incomplete;
    }
    await appendToTrace(review.traceFile, review.events, undone.event);
    return report(io, undone, `undid the revert of ${undone.stepIds.join(', ') || 'the run'}`);
  }
  const confirmed = await confirmedPaths(named, io, () => revertRecorded(review, { stepIds: args.steps, force: args.force, dryRun: true, confirmed: named }));
  const result = await revertRecorded(review, { stepIds: args.steps, force: args.force, confirmed });
  if (result.outcome.files.length === 0 && result.outcome.conflicts.length === 0) {
    printLine(
      io.stderr,
      `nothing to revert: ${args.steps.length ? `${args.steps.join(', ')} changed` : 'the run changed'} no file that is not reverted already`,
    );
    return EXIT.completed;
  }
  await appendToTrace(review.traceFile, review.events, result.event);
  return report(io, result, `reverted ${args.steps.length ? result.stepIds.join(', ') : 'the run'}`);
}

export async function revertMain(argv: string[], io: ReviewIo): Promise<number> {
  let args: ReviewArgs;
  let review: RunReview;
  try {
    args = parseReviewArgs(argv);
    if (args.help) {
      io.stdout.write(`${REVERT_USAGE}\n`);
      return EXIT.completed;
    }
    review = await openReviewFor(args, io.cwd);
    if (!args.force && !review.events.some((event) => event.type === 'run_finished')) {
      throw new UsageError('the run has not finished (it may still be running, or it was interrupted): revert it once it has ended, or give --force', false);
    }
  } catch (error) {
    return usageFailure(io.stderr, error, 'cortex revert');
  }
  try {
    return await run(args, review, io);
  } catch (error) {
    // An unknown step, or a trace that cannot be appended to.
    printLine(io.stderr, `cortex: ${(error as Error).message}`);
    return EXIT.usage;
  }
}
