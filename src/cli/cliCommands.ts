import { cliRunDependencies } from './cliRunDependencies';
import { usageFailure } from './usageFailure';
import { AgentRun } from '../core/agent/agentRun';
import { acquireRunLock, type RunLock } from '../core/resume/runLock';
import { parseCliArgs, reviewCommandOf, USAGE } from './cliArgs';
import { diffMain } from './cliDiff';
import { revertMain } from './cliRevert';
import { loadCliConfigSync } from './cliConfig';
import { cliMcpIo, loadCliMcpServers } from './cliMcp';
import { isResumeCommand, resumeMain } from './cliResume';
import { isRetryStepCommand, retryStepMain } from './cliRetryStep';
import { driveCliRun } from './cliSession';
import { warnIfTraceInsideWorkspace } from './traceInsideWorkspace';
import { EXIT } from './exitCode';
import { readPlanFileSync } from './planFile';
import { planMain } from './cliPlan';
import type { ParsedPlan } from '../core/agent/planParsing';
import { resolve } from 'node:path';

// Every command of the CLI: loaded by the entry (main.ts) only when a command is to be run, so
// that `cortex --help` needs none of the agent.

export interface CommandIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  cwd: string;
  env: NodeJS.ProcessEnv;
}

/** `cortex run …`, `cortex resume …`, `cortex diff …` and `cortex revert …`. Returns the process exit code (see USAGE). */
export async function runCommand(argv: string[], io: CommandIo): Promise<number> {
  if (isResumeCommand(argv)) return resumeMain(argv, io);
  if (isRetryStepCommand(argv)) return retryStepMain(argv, io);
  const review = reviewCommandOf(argv);
  if (review) return review === 'diff' ? diffMain(argv, io) : revertMain(argv, io);
  let args;
  let loaded;
  let mcpServers;
  let lock: RunLock | undefined;
  let given: { task: string; plan: ParsedPlan } | undefined;
  try {
    args = parseCliArgs(argv, io.cwd);
    if (args.help) {
      io.stdout.write(`${USAGE}\n`);
      return EXIT.completed;
    }
    loaded = loadCliConfigSync(args, io.cwd, io.env);
    // A plan file is checked before anything starts (docs/design.md, “Step scopes and plan approval”).
    if (args.planFile !== undefined) given = readPlanFileSync(resolve(io.cwd, args.planFile));
    mcpServers = await loadCliMcpServers(args.mcpConfig, loaded.config, loaded.workspace, io.cwd, cliMcpIo(io));
    // One process drives a run: a trace another process is writing is not started over.
    lock = loaded.trace && args.command === 'run' ? await acquireRunLock(loaded.trace) : undefined;
  } catch (error) {
    return usageFailure(io.stderr, error, 'cortex');
  }
  warnIfTraceInsideWorkspace(io.stderr, loaded.workspace, loaded.trace, loaded.checkpoints);
  const shared = cliRunDependencies(loaded, io.env, mcpServers);
  if (args.command === 'plan') return planMain({ io, out: resolve(io.cwd, args.out!), task: args.task, shared, workspace: loaded.workspace });
  return driveCliRun({
    io,
    approve: args.approve,
    trace: loaded.trace ? { file: loaded.trace, append: false } : undefined,
    lock,
    makeRun: (log, approvals) => {
      const agent = new AgentRun({
        ...shared,
        task: given?.task ?? args.task,
        ...(given ? { plan: given.plan } : {}),
        workspaceRoot: loaded.workspace,
        log,
        approvals,
        // Changes are recorded outside the workspace; the trace and its lock are the CLI's own files.
        checkpointsDir: loaded.checkpoints,
        checkpointsExclude: loaded.trace ? [loaded.trace, `${loaded.trace}.lock`] : undefined,
      });
      return Promise.resolve({ agent, run: () => agent.start() });
    },
  });
}
