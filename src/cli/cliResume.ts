import { cliRunDependencies } from './cliRunDependencies';
import { usageFailure } from './usageFailure';
import { resolve } from 'node:path';
import { openResume, prepareResumedRun, type OpenedResume } from '../core/agent/resumeRun';
import { UsageError, type CliArgs } from './cliArgs';
import { isRecordedRunCommand, parseRecordedRunArgs, type RecordedRunArgs } from './cliRecordedRunArgs';
import { loadCliConfigSync } from './cliConfig';
import { cliMcpIo, loadCliMcpServers } from './cliMcp';
import { driveCliRun, type CliIo } from './cliSession';
import { warnIfTraceInsideWorkspace } from './traceInsideWorkspace';
import { EXIT } from './exitCode';

// `cortex resume --trace FILE`: continues an interrupted run from its trace (docs/design.md, “Resuming a run”),
// with the settings of now (--config and flags), appending to the same trace.

export const RESUME_USAGE = `Usage: cortex resume --trace FILE [--workspace DIR] [--config FILE] [--base-url URL]
                     [--model NAME] [--fallback-model NAME]... [--memory FILE] [--mcp-config FILE]
                     [--approve all|none|plan] [--checkpoints DIR] [--allow-protected PATH]...
                     [--require-verified]

Continues an interrupted run (one whose trace has no run_finished line) from its trace:
completed steps are kept and not run again, steps that were running start again from the
beginning, and the trace continues in the same file. The settings used are the current ones
(--config and the flags), not those the run started with. The run continues in --workspace DIR
(default: the current folder), which must be the folder the run worked in: a trace recorded for
another folder is refused. A run that finished cannot be resumed. Only one process drives a
run: FILE.lock names the process that does. What the steps that start again had changed is
put back first from the run's checkpoints (--checkpoints DIR, by default FILE.checkpoints, as for
cortex run); a protected path (cortex.policy.protectedPaths) is put back only when named with
--allow-protected PATH, and nothing inside .git nor the trace, its lock or its checkpoint folder
ever is. --approve plan continues in the plan approval mode: the plan the run approved keeps its
scopes (calls inside them run unasked), and a plan still waiting is approved.
Exit codes are those of cortex run.`;

interface ResumeArgs extends RecordedRunArgs {
  allowProtected: string[];
}

const RESUME_OPTIONS = { 'allow-protected': { type: 'string', multiple: true } } as const;

/** True when the command (the first word that is not an option) is `resume`. */
export function isResumeCommand(argv: readonly string[]): boolean {
  return isRecordedRunCommand(argv, 'resume', RESUME_OPTIONS);
}

/** Parses `cortex resume …` (the command word included); every mistake is a UsageError in Cortex's words. */
export function parseResumeArgs(argv: readonly string[]): ResumeArgs {
  const { args, values } = parseRecordedRunArgs(argv, 'resume', RESUME_OPTIONS);
  if (args.help) return { ...args, allowProtected: [] };
  if (args.trace === undefined) throw new UsageError('missing --trace FILE: the trace of the run to resume');
  return { ...args, allowProtected: ((values['allow-protected'] as string[] | undefined) ?? []).map((path) => path.replace(/^(\.\/)+/, '')) };
}

/** `cortex resume …`: returns the process exit code (those of `cortex run`). */
export async function resumeMain(argv: string[], io: CliIo & { cwd: string; env: NodeJS.ProcessEnv }): Promise<number> {
  let args: ResumeArgs;
  let opened: OpenedResume;
  let loaded;
  let mcpServers;
  try {
    args = parseResumeArgs(argv);
    if (args.help) {
      io.stdout.write(`${RESUME_USAGE}\n`);
      return EXIT.completed;
    }
    const trace = resolve(io.cwd, args.trace!);
    // The folder the person gives (else the current one), never the one the trace names.
    const workspace = args.workspace ?? '.';
    const cliArgs: CliArgs = { ...args, command: 'run', task: '', workspace, trace };
    loaded = loadCliConfigSync(cliArgs, io.cwd, io.env);
    mcpServers = await loadCliMcpServers(args.mcpConfig, loaded.config, loaded.workspace, io.cwd, cliMcpIo(io));
    opened = await openResume({ traceFile: trace, workspaceRoot: loaded.workspace });
  } catch (error) {
    return usageFailure(io.stderr, error, 'cortex resume');
  }
  warnIfTraceInsideWorkspace(io.stderr, loaded.workspace, opened.traceFile, loaded.checkpoints);
  const shared = cliRunDependencies(loaded, io.env, mcpServers);
  return driveCliRun({
    io,
    approve: args.approve,
    trace: { file: opened.traceFile, append: true },
    lock: opened.lock,
    history: opened.events,
    // The resumed part's changes go to the same checkpoint folder as the run's (docs/design.md, “Checkpoints and revert”).
    makeRun: (log, approvals) =>
      prepareResumedRun(opened, log, {
        ...shared,
        approvals,
        checkpointsDir: loaded.checkpoints,
        checkpointsExclude: [opened.traceFile, `${opened.traceFile}.lock`],
        confirmedRestores: args.allowProtected,
      }),
  });
}
