import { usageFailure } from './usageFailure';
import { resolve } from 'node:path';
import { diffText } from '../core/checkpoints/changeDiff';
import { summarizeChanges, type FileSummary } from '../core/checkpoints/changeSummary';
import { openReview, type RunReview } from '../core/checkpoints/runReview';
import { terminalSafe } from '../core/text/terminalSafe';
import { parseReviewArgs, UsageError, type ReviewArgs } from './cliArgs';
import type { CliIo } from './cliSession';
import { printLine } from './cliSession';
import { EXIT } from './exitCode';

// `cortex diff --trace FILE [--step ID]`: the run's file changes (or one step's) as a unified
// diff, read from the contents the run saved (docs/design.md, “Checkpoints and revert”). The diff goes to stdout; a
// summary line goes to stderr.

export const DIFF_USAGE = `Usage: cortex diff --trace FILE [--step ID] [--checkpoints DIR] [--workspace DIR]

Prints the file changes of a recorded run as a unified diff (patch -p1 reads it): every file the
run changed, from its content before the run to its content after, leaving out changes a revert
undid; with --step ID, what that step changed (reverted changes marked with a # line). The
contents come from the run's checkpoint folder (--checkpoints DIR, by default FILE.checkpoints).
The run must have worked in --workspace DIR (default: the current folder): a trace recorded for
another folder is refused.
Exit codes: 0 shown, 2 usage error (bad flag, missing trace or checkpoint folder, unknown step).`;

export interface ReviewIo extends CliIo {
  cwd: string;
}

/** Opens the trace and checkpoints a review command names, or throws a UsageError saying why not. */
export async function openReviewFor(args: ReviewArgs, cwd: string): Promise<RunReview> {
  try {
    // The folder the person gives (else the current one), never the one the trace names.
    return await openReview(resolve(cwd, args.trace), {
      ...(args.checkpoints ? { checkpointsDir: resolve(cwd, args.checkpoints) } : {}),
      workspace: resolve(cwd, args.workspace ?? '.'),
    });
  } catch (error) {
    throw new UsageError((error as Error).message.replace(/\.$/, ''), false);
  }
}

/** "3 files changed (+10 −2)", with the reverted ones counted apart. */
export function changeSummaryLine(summaries: readonly FileSummary[], added: number, removed: number, scope: string): string {
  const files = summaries.filter((s) => !s.directory);
  if (files.length === 0) return `${scope}: no file changes`;
  const reverted = files.filter((s) => s.reverted).length;
  return `${scope}: ${files.length} file${files.length === 1 ? '' : 's'} changed (+${added} −${removed})${reverted ? `, ${reverted} reverted since` : ''}`;
}

export async function diffMain(argv: string[], io: ReviewIo): Promise<number> {
  let args: ReviewArgs;
  let review: RunReview;
  try {
    args = parseReviewArgs(argv);
    if (args.help) {
      io.stdout.write(`${DIFF_USAGE}\n`);
      return EXIT.completed;
    }
    review = await openReviewFor(args, io.cwd);
    const step = args.steps[0];
    if (step !== undefined && !review.state.steps.has(step) && !review.state.replacedSteps.has(step))
      throw new UsageError(`no step ${step} in this run`, false);
  } catch (error) {
    return usageFailure(io.stderr, error, 'cortex diff');
  }
  for (const warning of review.warnings) printLine(io.stderr, `cortex: ${warning}`);
  const step = args.steps[0];
  const summaries = summarizeChanges(review.state, step);
  let diff;
  try {
    diff = await diffText(summaries, review.store);
  } catch (error) {
    // A checkpoint object that is not a regular file, or too large (checked before it is read).
    printLine(io.stderr, `cortex: ${(error as Error).message}`);
    return EXIT.usage;
  }
  // A terminal gets file contents with control characters made visible; a pipe gets the exact diff.
  io.stdout.write((io.stdout as { isTTY?: boolean }).isTTY ? terminalSafe(diff.text) : diff.text);
  printLine(io.stderr, changeSummaryLine(summaries, diff.added, diff.removed, step ? `step ${step}` : 'run'));
  return EXIT.completed;
}
