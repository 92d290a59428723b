import { existsSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { openRetryStep, prepareRetryStepRun, type OpenedRetry } from '../core/agent/retryStepRun';
import { sameFolder } from '../core/files/recordedWorkspace';
import { acquireRunLock, type RunLock } from '../core/resume/runLock';
import { UsageError } from './cliArgs';
import { isRecordedRunCommand, parseRecordedRunArgs, type RecordedRunArgs } from './cliRecordedRunArgs';
import { loadCliConfigSync } from './cliConfig';
import { cliMcpIo, loadCliMcpServers } from './cliMcp';
import { cliRunDependencies } from './cliRunDependencies';
import { driveCliRun, printLine, type CliIo } from './cliSession';
import { EXIT } from './exitCode';
import { warnIfTraceInsideWorkspace } from './traceInsideWorkspace';
import { usageFailure } from './usageFailure';

// `cortex retry-step --trace FILE --step ID`: a failed or blocked step of a finished run runs again
// in a new run with a trace of its own, which carries the old run's completed steps over
// (docs/design.md, “Retrying a step”). The old trace is only read.

export const RETRY_STEP_USAGE = `Usage: cortex retry-step --trace FILE --step ID [--new-trace FILE] [--workspace DIR]
                         [--config FILE] [--base-url URL] [--model NAME] [--fallback-model NAME]...
                         [--memory FILE] [--mcp-config FILE] [--approve all|none|plan]
                         [--checkpoints DIR] [--require-verified]

Runs step ID of a finished run (one that failed or was cancelled) again, in a new run. FILE is the
finished run's trace: it is read and never changed. The new run starts from that run's plan: its
completed steps are carried over (their outputs feed the steps after them) and do not run again,
and their files stay as they are on disk; step ID, the steps it needs that did not complete, the
steps after them and the steps that never started run, with a fresh replan budget. Other failed or
blocked steps are kept as they ended. Only a failed or blocked step can be retried; an interrupted
run (no run_finished) is continued with cortex resume instead. The new trace is --new-trace FILE,
by default FILE's name with .retry-ID (then -2, -3...) added, and its first line names the run and
step it retries. The run works in --workspace DIR (default: the current folder), which must be the
folder the run worked in. Settings are the current ones (--config and the flags). Exit codes are
those of cortex run; a refusal is exit 2.`;

interface RetryStepArgs extends RecordedRunArgs {
  step?: string;
  newTrace?: string;
}

const RETRY_STEP_OPTIONS = { step: { type: 'string' }, 'new-trace': { type: 'string' } } as const;

/** True when the command (the first word that is not an option) is `retry-step`. */
export function isRetryStepCommand(argv: readonly string[]): boolean {
  return isRecordedRunCommand(argv, 'retry-step', RETRY_STEP_OPTIONS);
}

/** Parses `cortex retry-step …` (the command word included); every mistake is a UsageError. */
export function parseRetryStepArgs(argv: readonly string[]): RetryStepArgs {
  const { args, values } = parseRecordedRunArgs(argv, 'retry-step', RETRY_STEP_OPTIONS);
  if (args.help) return args;
  if (args.trace === undefined) throw new UsageError('missing --trace FILE: the trace of the finished run');
  if (values.step === undefined) throw new UsageError('missing --step ID: the failed or blocked step to run again');
  return { ...args, step: values.step as string, newTrace: values['new-trace'] as string | undefined };
}

/** `run.jsonl` → `run.retry-s2.jsonl`, then `run.retry-s2-2.jsonl`…: the first name not taken. */
export function derivedRetryTraceSync(oldTrace: string, stepId: string): string {
  const name = basename(oldTrace).replace(/\.jsonl?$/, '');
  // The step id comes from the command line: only its safe characters go into a file name.
  const step = stepId.replace(/[^A-Za-z0-9_-]/g, '_');
  for (let n = 1; ; n++) {
    const candidate = join(dirname(oldTrace), `${name}.retry-${step}${n > 1 ? `-${n}` : ''}.jsonl`);
    if (!existsSync(candidate) && !existsSync(`${candidate}.lock`)) return candidate;
  }
}

/** The old trace is never written: the new one must be another file. */
async function checkNewTrace(oldTrace: string, newTrace: string): Promise<void> {
  if (resolve(newTrace) === resolve(oldTrace) || (await sameFolder(newTrace, oldTrace)))
    throw new UsageError(`--new-trace ${newTrace} is the trace of the run being retried, which is never changed: give another file`);
}

/** `cortex retry-step …`: returns the process exit code (those of `cortex run`). */
export async function retryStepMain(argv: string[], io: CliIo & { cwd: string; env: NodeJS.ProcessEnv }): Promise<number> {
  let args: RetryStepArgs;
  let opened: OpenedRetry;
  let loaded;
  let mcpServers;
  let lock: RunLock;
  try {
    args = parseRetryStepArgs(argv);
    if (args.help) {
      io.stdout.write(`${RETRY_STEP_USAGE}\n`);
      return EXIT.completed;
    }
    const oldTrace = resolve(io.cwd, args.trace!);
    const newTrace = args.newTrace ? resolve(io.cwd, args.newTrace) : derivedRetryTraceSync(oldTrace, args.step!);
    await checkNewTrace(oldTrace, newTrace);
    // The old run is checked before anything is made for the new one (the new trace's folder).
    const workspace = resolve(io.cwd, args.workspace ?? '.');
    opened = await openRetryStep({ traceFile: oldTrace, stepId: args.step!, workspaceRoot: workspace });
    loaded = loadCliConfigSync({ ...args, command: 'run', task: '', workspace, trace: newTrace }, io.cwd, io.env);
    mcpServers = await loadCliMcpServers(args.mcpConfig, loaded.config, loaded.workspace, io.cwd, cliMcpIo(io));
    // One process drives a run, the new one included.
    lock = await acquireRunLock(newTrace);
  } catch (error) {
    return usageFailure(io.stderr, error, 'cortex retry-step');
  }
  const newTrace = loaded.trace!;
  printLine(io.stderr, `cortex: the retry's trace is ${newTrace}`);
  warnIfTraceInsideWorkspace(io.stderr, loaded.workspace, newTrace, loaded.checkpoints);
  const shared = cliRunDependencies(loaded, io.env, mcpServers);
  return driveCliRun({
    io,
    approve: args.approve,
    trace: { file: newTrace, append: false },
    lock,
    makeRun: (log, approvals) =>
      Promise.resolve(
        prepareRetryStepRun(opened, log, {
          ...shared,
          approvals,
          checkpointsDir: loaded.checkpoints,
          // The old trace is a run file too: never taken for a change, never written by a tool.
          checkpointsExclude: [newTrace, `${newTrace}.lock`, opened.traceFile],
        }),
      ),
  });
}
